CREATE TABLE "monitor_events" (
	"id" text PRIMARY KEY NOT NULL,
	"monitor_id" text NOT NULL,
	"account_id" text NOT NULL,
	"type" text NOT NULL,
	"body" json NOT NULL,
	"delivered" boolean NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "monitor_transcript_tasks" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"monitor_id" text NOT NULL,
	"videos_event_id" text NOT NULL,
	"video_id" text NOT NULL,
	"status" text NOT NULL,
	"job_id" text,
	"claimed_until" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "monitor_transcript_tasks_status" CHECK ("monitor_transcript_tasks"."status" in ('pending', 'awaiting_job', 'done'))
);
--> statement-breakpoint
CREATE TABLE "monitors" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"target" text NOT NULL,
	"tab" text NOT NULL,
	"name" text,
	"status" text NOT NULL,
	"interval_minutes" integer NOT NULL,
	"transcripts" boolean NOT NULL,
	"webhook_url" text,
	"webhook_secret" text NOT NULL,
	"seen_video_ids" jsonb NOT NULL,
	"next_check_at" timestamp with time zone,
	"claimed_until" timestamp with time zone,
	"last_checked_at" timestamp with time zone,
	"last_error" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "monitors_status" CHECK ("monitors"."status" in ('active', 'paused')),
	CONSTRAINT "monitors_interval" CHECK ("monitors"."interval_minutes" in (15, 60, 360, 1440))
);
--> statement-breakpoint
ALTER TABLE "credit_ledger" DROP CONSTRAINT "credit_ledger_kind";--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "refilled_cycles" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "monitor_id" text;--> statement-breakpoint
ALTER TABLE "monitor_events" ADD CONSTRAINT "monitor_events_monitor_id_monitors_id_fk" FOREIGN KEY ("monitor_id") REFERENCES "public"."monitors"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "monitor_transcript_tasks" ADD CONSTRAINT "monitor_transcript_tasks_monitor_id_monitors_id_fk" FOREIGN KEY ("monitor_id") REFERENCES "public"."monitors"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "monitors" ADD CONSTRAINT "monitors_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "monitor_events_monitor_idx" ON "monitor_events" USING btree ("monitor_id","id");--> statement-breakpoint
CREATE INDEX "monitor_events_account_idx" ON "monitor_events" USING btree ("account_id","id");--> statement-breakpoint
CREATE INDEX "monitor_transcript_tasks_pending_idx" ON "monitor_transcript_tasks" USING btree ("claimed_until") WHERE "monitor_transcript_tasks"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "monitor_transcript_tasks_job_idx" ON "monitor_transcript_tasks" USING btree ("job_id");--> statement-breakpoint
CREATE INDEX "monitors_account_idx" ON "monitors" USING btree ("account_id","id");--> statement-breakpoint
CREATE INDEX "monitors_due_idx" ON "monitors" USING btree ("next_check_at") WHERE "monitors"."status" = 'active';--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_monitor_id_monitors_id_fk" FOREIGN KEY ("monitor_id") REFERENCES "public"."monitors"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credit_ledger" ADD CONSTRAINT "credit_ledger_kind" CHECK ("credit_ledger"."kind" in ('charge', 'grant', 'refill'));