-- YouTube's translations of caption tracks (`translate_to`) are stored apart from the tracks:
-- a translation names the language it came from, and a request is answered by its language and
-- its translation together. Rows stored before are tracks as YouTube serves them.
ALTER TABLE "youtube_transcripts" ADD COLUMN "source_language" text;--> statement-breakpoint
ALTER TABLE "youtube_transcripts" DROP CONSTRAINT "youtube_transcripts_track";--> statement-breakpoint
ALTER TABLE "youtube_transcripts" ADD CONSTRAINT "youtube_transcripts_track" UNIQUE NULLS NOT DISTINCT("video_id","language","caption_kind","source_language");--> statement-breakpoint
ALTER TABLE "youtube_caption_choices" ADD COLUMN "translate_to" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "youtube_caption_choices" DROP CONSTRAINT "youtube_caption_choices_video_id_requested_language_pk";--> statement-breakpoint
ALTER TABLE "youtube_caption_choices" ADD CONSTRAINT "youtube_caption_choices_video_id_requested_language_translate_to_pk" PRIMARY KEY("video_id","requested_language","translate_to");
