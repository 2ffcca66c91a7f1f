CREATE TABLE "live_events" (
	"session_id" text NOT NULL,
	"seq" bigint NOT NULL,
	"type" text NOT NULL,
	"body" json NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "live_events_session_id_seq_pk" PRIMARY KEY("session_id","seq"),
	CONSTRAINT "live_events_type" CHECK ("live_events"."type" in ('live.started', 'live.segment', 'live.gap', 'live.ended', 'live.failed'))
);
--> statement-breakpoint
CREATE TABLE "live_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"status" text NOT NULL,
	"end_reason" text,
	"error" jsonb,
	"url" text NOT NULL,
	"source" jsonb NOT NULL,
	"stream" jsonb NOT NULL,
	"language" text,
	"partials" boolean NOT NULL,
	"max_minutes" integer NOT NULL,
	"webhook_url" text,
	"request_id" text NOT NULL,
	"docs_base_url" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"ended_at" timestamp with time zone,
	"stop_requested_at" timestamp with time zone,
	"next_attempt_at" timestamp with time zone NOT NULL,
	"lease_owner" text,
	"lease_expires_at" timestamp with time zone,
	"audio_seconds" double precision DEFAULT 0 NOT NULL,
	"timeline_seconds" double precision DEFAULT 0 NOT NULL,
	"charged_minutes" integer DEFAULT 0 NOT NULL,
	"last_seq" bigint DEFAULT 0 NOT NULL,
	"partial" jsonb,
	"position" jsonb,
	"webhook_sent_seq" bigint DEFAULT 0 NOT NULL,
	"webhook_sent_at" timestamp with time zone,
	"library_entry" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "live_sessions_status" CHECK ("live_sessions"."status" in ('waiting', 'live', 'ended', 'stopped', 'failed')),
	CONSTRAINT "live_sessions_end_reason" CHECK ("live_sessions"."end_reason" is null or "live_sessions"."end_reason" in ('stream_ended', 'max_minutes', 'insufficient_credits', 'stopped')),
	CONSTRAINT "live_sessions_charged_minutes" CHECK ("live_sessions"."charged_minutes" >= 0)
);
--> statement-breakpoint
ALTER TABLE "live_events" ADD CONSTRAINT "live_events_session_id_live_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."live_sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "live_sessions" ADD CONSTRAINT "live_sessions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "live_sessions_account_idx" ON "live_sessions" USING btree ("account_id","id");--> statement-breakpoint
CREATE INDEX "live_sessions_running_idx" ON "live_sessions" USING btree ("next_attempt_at") WHERE "live_sessions"."status" in ('waiting', 'live');