-- Sessions opened before this migration did not record the key that opened them, so revoking
-- that key could not end them: they end here, and their owners sign in again.
DELETE FROM "api_keys" WHERE "kind" = 'session';--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "opened_by_key_id" text;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_opened_by_key_id_api_keys_id_fk" FOREIGN KEY ("opened_by_key_id") REFERENCES "public"."api_keys"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "api_keys_opened_by_key_idx" ON "api_keys" USING btree ("opened_by_key_id") WHERE "api_keys"."opened_by_key_id" is not null;