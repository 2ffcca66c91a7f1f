-- Word times kept with a transcript (words: true), so a store hit answers them without another
-- fetch: a stored caption track's words beside its segments, and a library passage's words when
-- its source timed them all. Rows from before keep none, and answer estimated word times.
ALTER TABLE "library_passages" ADD COLUMN "word_starts" double precision[];--> statement-breakpoint
ALTER TABLE "library_passages" ADD COLUMN "word_durations" double precision[];--> statement-breakpoint
ALTER TABLE "youtube_transcripts" ADD COLUMN "segment_words" jsonb;