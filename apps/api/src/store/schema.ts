import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  check,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  unique,
} from "drizzle-orm/pg-core";

const createdAt = () => timestamp("created_at", { withTimezone: true }).notNull().defaultNow();

/** The plans' limits, written from `services/plans.ts` at every start so SQL functions can read them. */
export const plans = pgTable("plans", {
  name: text("name").primaryKey(),
  requestsPerMinute: integer("requests_per_minute").notNull(),
  pollsPerMinute: integer("polls_per_minute").notNull(),
  extractionSlots: integer("extraction_slots").notNull(),
  batchWorkers: integer("batch_workers").notNull(),
  maxBatchItems: integer("max_batch_items").notNull(),
  monthlyCredits: integer("monthly_credits").notNull(),
});

export const accounts = pgTable(
  "accounts",
  {
    id: text("id").primaryKey(),
    name: text("name"),
    plan: text("plan")
      .notNull()
      .references(() => plans.name),
    /** The balance; `null` means unlimited. The ledger holds every change. */
    credits: bigint("credits", { mode: "number" }),
    webhookSecret: text("webhook_secret").notNull(),
    createdAt: createdAt(),
  },
  (table) => [check("accounts_credits_never_negative", sql`${table.credits} >= 0`)],
);

export const apiKeys = pgTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    /** Hex SHA-256 of the whole key; the key itself is shown once and never stored. */
    secretHash: text("secret_hash").notNull().unique(),
    /** The first characters of the key, to recognise it in listings. */
    displayPrefix: text("display_prefix").notNull(),
    /** A limit lower than the plan's, for this key only. */
    requestsPerMinute: integer("requests_per_minute"),
    createdAt: createdAt(),
    /** From this moment the key is refused; set in the future for a rotation's grace period. */
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
  },
  (table) => [index("api_keys_account_idx").on(table.accountId)],
);

/** Append-only: every change of a balance, with the balance after it. */
export const creditLedger = pgTable(
  "credit_ledger",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    /** Negative for charges, positive for grants. */
    delta: bigint("delta", { mode: "number" }).notNull(),
    balanceAfter: bigint("balance_after", { mode: "number" }),
    /** `charge` or `grant`. */
    kind: text("kind").notNull(),
    /** The operation charged, as `METHOD /path`. */
    operation: text("operation"),
    requestId: text("request_id"),
    reason: text("reason"),
    createdAt: createdAt(),
  },
  (table) => [
    index("credit_ledger_account_time_idx").on(table.accountId, table.createdAt),
    check("credit_ledger_kind", sql`${table.kind} in ('charge', 'grant')`),
  ],
);

/**
 * The exact sliding window of one allowance: the times of its admitted requests of the last 60
 * seconds, oldest first. It never holds more than the allowance's limit, so an admission costs
 * the same however busy the account is.
 */
export const rateWindows = pgTable("rate_windows", {
  /** `<allowance>:<account id>`, or `request:<key id>` for a key's own lower limit. */
  scope: text("scope").primaryKey(),
  hits: timestamp("hits", { withTimezone: true, precision: 6 }).array().notNull(),
});

/** Extraction slots in use; a lease that is not renewed expires, so a dead process frees its slots. */
export const slotLeases = pgTable(
  "slot_leases",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull(),
    /** The process holding the lease; it renews all its leases together. */
    holder: text("holder").notNull(),
    acquiredAt: timestamp("acquired_at", { withTimezone: true }).notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  },
  (table) => [
    index("slot_leases_account_idx").on(table.accountId, table.expiresAt),
    index("slot_leases_holder_idx").on(table.holder),
  ],
);

/** Stored responses of requests sent with an `Idempotency-Key` (spec 4.9). */
export const idempotencyRecords = pgTable(
  "idempotency_records",
  {
    accountId: text("account_id").notNull(),
    key: text("key").notNull(),
    /** SHA-256 of the method, path and canonical body: a different body is a conflict. */
    fingerprint: text("fingerprint").notNull(),
    /** `in_flight` while the first request runs, then `completed`. */
    state: text("state").notNull(),
    responseStatus: integer("response_status"),
    responseHeaders: jsonb("response_headers").$type<Record<string, string>>(),
    responseBody: jsonb("response_body"),
    /** An in-flight record older than this was abandoned by a dead process. */
    lockedUntil: timestamp("locked_until", { withTimezone: true }).notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    createdAt: createdAt(),
  },
  (table) => [
    primaryKey({ columns: [table.accountId, table.key] }),
    index("idempotency_records_expiry_idx").on(table.expiresAt),
    check("idempotency_records_state", sql`${table.state} in ('in_flight', 'completed')`),
  ],
);

/** One fetched YouTube caption track, served again without another upstream call. */
export const youtubeTranscripts = pgTable(
  "youtube_transcripts",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    videoId: text("video_id").notNull(),
    /** BCP-47 language of the track; null when YouTube did not say (a transcript-panel answer). */
    language: text("language"),
    /** `manual` or `auto`; null when YouTube did not say. */
    captionKind: text("caption_kind"),
    title: text("title"),
    channel: text("channel"),
    durationSeconds: doublePrecision("duration_seconds"),
    thumbnailUrl: text("thumbnail_url"),
    /** `[{start, duration, text}]` in seconds. */
    segments: jsonb("segments").$type<Array<{ start: number; duration: number; text: string }>>().notNull(),
    fetchedAt: timestamp("fetched_at", { withTimezone: true }).notNull(),
  },
  (table) => [
    unique("youtube_transcripts_track").on(table.videoId, table.language, table.captionKind).nullsNotDistinct(),
    check("youtube_transcripts_caption_kind", sql`${table.captionKind} in ('manual', 'auto')`),
  ],
);

/** Which stored track answers a video requested in a language ('' when none was asked for). */
export const youtubeCaptionChoices = pgTable(
  "youtube_caption_choices",
  {
    videoId: text("video_id").notNull(),
    requestedLanguage: text("requested_language").notNull(),
    transcriptId: bigint("transcript_id", { mode: "number" })
      .notNull()
      .references(() => youtubeTranscripts.id, { onDelete: "cascade" }),
  },
  (table) => [primaryKey({ columns: [table.videoId, table.requestedLanguage] })],
);
