-- The chapters of an item (a YouTube description's timestamps, a platform's chapters, a podcast
-- episode's chapters file), kept with each transcript of it, captions or speech, whatever the
-- platform, so a store hit answers them without another fetch. Transcripts kept before keep null
-- and answer without chapters until kept again.
ALTER TABLE "stored_transcripts" ADD COLUMN "chapters" jsonb;