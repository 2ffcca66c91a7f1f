CREATE TABLE "library_entries" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"video_key" text NOT NULL,
	"video_id" text NOT NULL,
	"platform" text NOT NULL,
	"url" text,
	"title" text,
	"channel" text,
	"language" text,
	"source" text NOT NULL,
	"duration_seconds" double precision,
	"search_config" text NOT NULL,
	"content_hash" text NOT NULL,
	"fetched_at" timestamp (6) with time zone NOT NULL,
	CONSTRAINT "library_entries_video" UNIQUE("account_id","video_key")
);
--> statement-breakpoint
CREATE TABLE "library_passages" (
	"entry_id" bigint NOT NULL,
	"position" integer NOT NULL,
	"text" text NOT NULL,
	"segment_starts" double precision[] NOT NULL,
	"segment_offsets" integer[] NOT NULL,
	"words" "tsvector" NOT NULL,
	CONSTRAINT "library_passages_entry_id_position_pk" PRIMARY KEY("entry_id","position")
);
--> statement-breakpoint
ALTER TABLE "library_entries" ADD CONSTRAINT "library_entries_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "library_passages" ADD CONSTRAINT "library_passages_entry_id_library_entries_id_fk" FOREIGN KEY ("entry_id") REFERENCES "public"."library_entries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "library_entries_newest_idx" ON "library_entries" USING btree ("account_id","fetched_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "library_entries_config_idx" ON "library_entries" USING btree ("account_id","search_config");--> statement-breakpoint
CREATE INDEX "library_passages_words_idx" ON "library_passages" USING gin ("words");--> statement-breakpoint
-- Most words of a vocabulary are rare: a larger sample of the words' statistics lets the planner tell a rare
-- word (read through the GIN index) from a common one (walk the newest entries until a page is full).
ALTER TABLE "library_passages" ALTER COLUMN "words" SET STATISTICS 1000;
