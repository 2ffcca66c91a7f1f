-- A stored transcript keeps the hash of its words (as the library computes it, in
-- store/statements/library-entry.ts) and the byte length of its text, written once when stored,
-- so a store hit neither hashes nor measures the words again. Rows stored before are backfilled.
ALTER TABLE "youtube_transcripts" ADD COLUMN "content_hash" text;--> statement-breakpoint
ALTER TABLE "youtube_transcripts" ADD COLUMN "text_bytes" integer;--> statement-breakpoint
UPDATE "youtube_transcripts" SET
  "content_hash" = encode(sha256(convert_to(jsonb_build_array("language", "segments")::text, 'UTF8')), 'base64'),
  "text_bytes" = coalesce((SELECT sum(octet_length(s ->> 'text')) + count(*) - 1 FROM jsonb_array_elements("segments") s), 0);--> statement-breakpoint
ALTER TABLE "youtube_transcripts" ALTER COLUMN "content_hash" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "youtube_transcripts" ALTER COLUMN "text_bytes" SET NOT NULL;
