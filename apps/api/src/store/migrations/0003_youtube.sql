CREATE TABLE "youtube_caption_choices" (
	"video_id" text NOT NULL,
	"requested_language" text NOT NULL,
	"transcript_id" bigint NOT NULL,
	CONSTRAINT "youtube_caption_choices_video_id_requested_language_pk" PRIMARY KEY("video_id","requested_language")
);
--> statement-breakpoint
CREATE TABLE "youtube_transcripts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"video_id" text NOT NULL,
	"language" text,
	"caption_kind" text,
	"title" text,
	"channel" text,
	"duration_seconds" double precision,
	"thumbnail_url" text,
	"segments" jsonb NOT NULL,
	"fetched_at" timestamp with time zone NOT NULL,
	CONSTRAINT "youtube_transcripts_track" UNIQUE NULLS NOT DISTINCT("video_id","language","caption_kind"),
	CONSTRAINT "youtube_transcripts_caption_kind" CHECK ("youtube_transcripts"."caption_kind" in ('manual', 'auto'))
);
--> statement-breakpoint
ALTER TABLE "youtube_caption_choices" ADD CONSTRAINT "youtube_caption_choices_transcript_id_youtube_transcripts_id_fk" FOREIGN KEY ("transcript_id") REFERENCES "public"."youtube_transcripts"("id") ON DELETE cascade ON UPDATE no action;