-- The chapters of a YouTube video (its description's timestamps), kept with each caption track
-- fetched, so a store hit answers them without another fetch. Tracks stored before keep null and
-- answer without chapters until fetched again.
ALTER TABLE "youtube_transcripts" ADD COLUMN "chapters" jsonb;