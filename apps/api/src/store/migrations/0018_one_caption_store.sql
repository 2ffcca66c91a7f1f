-- Every stored transcript, captions or speech, in one table keyed by platform, item, language and
-- kind (the caption kind and a translation's source language, or the speech model): YouTube's
-- caption tracks stay where they are under the table's new name, and the other platforms' caption
-- tracks and every speech transcript (audio_transcripts) move in, their words' times kept beside
-- their segments as YouTube's are. Jobs still running keep their work in the new shape.
ALTER TABLE "youtube_transcripts" RENAME TO "stored_transcripts";--> statement-breakpoint
ALTER TABLE "stored_transcripts" RENAME CONSTRAINT "youtube_transcripts_pkey" TO "stored_transcripts_pkey";--> statement-breakpoint
ALTER SEQUENCE "youtube_transcripts_id_seq" RENAME TO "stored_transcripts_id_seq";--> statement-breakpoint
ALTER TABLE "stored_transcripts" RENAME CONSTRAINT "youtube_transcripts_caption_kind" TO "stored_transcripts_caption_kind";--> statement-breakpoint
ALTER TABLE "stored_transcripts" DROP CONSTRAINT "youtube_transcripts_track";--> statement-breakpoint
ALTER TABLE "stored_transcripts" ADD COLUMN "platform" text DEFAULT 'youtube' NOT NULL;--> statement-breakpoint
ALTER TABLE "stored_transcripts" ALTER COLUMN "platform" DROP DEFAULT;--> statement-breakpoint
ALTER TABLE "stored_transcripts" ADD COLUMN "speech_model" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "stored_transcripts" ADD COLUMN "speech_engine" jsonb;--> statement-breakpoint
ALTER TABLE "stored_transcripts" ADD CONSTRAINT "stored_transcripts_key" UNIQUE NULLS NOT DISTINCT("platform","video_id","language","caption_kind","source_language","speech_model");--> statement-breakpoint
ALTER TABLE "youtube_caption_choices" RENAME TO "caption_choices";--> statement-breakpoint
ALTER TABLE "caption_choices" RENAME CONSTRAINT "youtube_caption_choices_transcript_id_youtube_transcripts_id_fk" TO "caption_choices_transcript_id_stored_transcripts_id_fk";--> statement-breakpoint
ALTER TABLE "caption_choices" DROP CONSTRAINT "youtube_caption_choices_video_id_requested_language_translate_to_pk";--> statement-breakpoint
ALTER TABLE "caption_choices" ADD COLUMN "platform" text DEFAULT 'youtube' NOT NULL;--> statement-breakpoint
ALTER TABLE "caption_choices" ALTER COLUMN "platform" DROP DEFAULT;--> statement-breakpoint
ALTER TABLE "caption_choices" ADD CONSTRAINT "caption_choices_platform_video_id_requested_language_translate_to_pk" PRIMARY KEY("platform","video_id","requested_language","translate_to");--> statement-breakpoint
-- A speech transcript was keyed `speech:<engine>:<model>:<media address>` (a podcast's or a file's)
-- or `speech:<engine>:<model>:<platform address or id>`; a platform's caption track
-- `captions:<platform>:<id>:<language>:<kind>`. Its item is now the media address, else its id.
INSERT INTO "stored_transcripts" ("platform", "video_id", "language", "caption_kind", "source_language", "speech_model",
                                  "speech_engine", "title", "channel", "duration_seconds", "thumbnail_url", "segments",
                                  "content_hash", "text_bytes", "segment_words", "fetched_at")
SELECT a."platform",
       CASE WHEN a."speech_model" <> '' AND a."platform" IN ('podcast', 'file')
            THEN substring(a."source_key" FROM length('speech:' || a."speech_model" || ':') + 1)
            ELSE a."transcript" ->> 'video_id' END,
       a."transcript" ->> 'language',
       CASE WHEN a."speech_model" = '' THEN a."transcript" ->> 'caption_kind' END,
       NULL,
       a."speech_model",
       CASE WHEN a."speech_model" <> '' THEN a."transcript" -> 'speech_engine' END,
       a."transcript" ->> 'title',
       a."transcript" ->> 'channel',
       CASE WHEN a."speech_model" <> '' THEN a."duration_seconds" ELSE (a."transcript" ->> 'duration')::double precision END,
       a."transcript" ->> 'thumbnail_url',
       (SELECT coalesce(jsonb_agg(s - 'words' ORDER BY n), '[]'::jsonb)
          FROM jsonb_array_elements(a."transcript" -> 'segments') WITH ORDINALITY AS e(s, n)),
       encode(sha256(convert_to(jsonb_build_array(a."transcript" ->> 'language', a."transcript" -> 'segments')::text, 'UTF8')), 'base64'),
       coalesce((SELECT sum(octet_length(s ->> 'text')) + count(*) - 1 FROM jsonb_array_elements(a."transcript" -> 'segments') s), 0),
       (SELECT CASE WHEN bool_or(s ? 'words') THEN jsonb_agg(s -> 'words' ORDER BY n) END
          FROM jsonb_array_elements(a."transcript" -> 'segments') WITH ORDINALITY AS e(s, n)),
       a."created_at"
  FROM (SELECT *,
               CASE WHEN "source_key" LIKE 'speech:%'
                    THEN ("transcript" -> 'speech_engine' ->> 'engine') || ':' || ("transcript" -> 'speech_engine' ->> 'model')
                    ELSE '' END AS "speech_model"
          FROM "audio_transcripts"
         WHERE ("source_key" LIKE 'speech:%' AND "transcript" -> 'speech_engine' ->> 'model' IS NOT NULL
                AND "duration_seconds" IS NOT NULL)
            OR ("source_key" LIKE 'captions:%' AND "transcript" ->> 'caption_kind' IN ('manual', 'auto'))) a
ON CONFLICT DO NOTHING;--> statement-breakpoint
DROP TABLE "audio_transcripts";--> statement-breakpoint
-- A running job's work named its media by kind (`url`, `youtube`, `source`) and its store key as
-- text; it now names the item the source that serves its platform downloads, and its place in the store.
UPDATE "transcript_jobs" SET "source" = jsonb_set("source", '{work}', jsonb_build_object(
  'media', CASE "source" -> 'work' -> 'media' ->> 'kind'
             WHEN 'youtube' THEN jsonb_build_object(
               'platform', 'youtube',
               'url', 'https://www.youtube.com/watch?v=' || ("source" -> 'work' -> 'media' ->> 'videoId'),
               'itemId', "source" -> 'work' -> 'media' ->> 'videoId')
             WHEN 'source' THEN jsonb_build_object(
               'platform', "source" -> 'work' -> 'media' ->> 'platform',
               'url', "source" -> 'work' -> 'media' ->> 'url')
             ELSE jsonb_build_object('platform', "platform", 'url', "source" -> 'work' -> 'media' ->> 'url') END,
  'stored', jsonb_build_object(
    'platform', "platform",
    'item', CASE "source" -> 'work' -> 'media' ->> 'kind'
              WHEN 'url' THEN "source" -> 'work' -> 'media' ->> 'url'
              WHEN 'youtube' THEN "source" -> 'work' -> 'media' ->> 'videoId'
              ELSE "video_id" END),
  'fields', "source" -> 'work' -> 'fields'))
 WHERE "status" = 'processing' AND "source" -> 'work' ? 'store_key';
