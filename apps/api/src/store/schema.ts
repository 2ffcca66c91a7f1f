import { sql } from "drizzle-orm";
import {
  type AnyPgColumn,
  bigint,
  bigserial,
  boolean,
  check,
  customType,
  doublePrecision,
  index,
  integer,
  json,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  unique,
  uniqueIndex,
} from "drizzle-orm/pg-core";

const createdAt = () => timestamp("created_at", { withTimezone: true }).notNull().defaultNow();

/** The plans' limits, written from `services/accounts/plans.ts` at every start so SQL functions can read them. */
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
    /**
     * Monthly cycles (counted from `created_at`) whose plan refill is done; cycle 0 is the
     * account's opening balance. The next refill is due at `created_at` + (this + 1) months.
     */
    refilledCycles: integer("refilled_cycles").notNull().default(0),
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
    /**
     * `api` for an API key; `session` for a dashboard session, which authenticates and counts
     * against the allowance like a key, from a cookie, and ends at `revoked_at`.
     */
    kind: text("kind", { enum: ["api", "session"] })
      .notNull()
      .default("api"),
    /** When the key last authenticated a request, to the minute. */
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
    /**
     * For a session opened with an API key, that key: revoking or rotating it ends the session.
     * `null` for a session opened by a sign-in link, and for keys.
     */
    openedByKeyId: text("opened_by_key_id").references((): AnyPgColumn => apiKeys.id),
  },
  (table) => [
    index("api_keys_account_idx").on(table.accountId),
    index("api_keys_opened_by_key_idx").on(table.openedByKeyId).where(sql`${table.openedByKeyId} is not null`),
    check("api_keys_kind", sql`${table.kind} in ('api', 'session')`),
  ],
);

/** One-time dashboard sign-in links, printed by the operator CLI; only their hash is stored. */
export const dashboardSignInLinks = pgTable("dashboard_sign_in_links", {
  /** Hex SHA-256 of the link's token. */
  tokenHash: text("token_hash").primaryKey(),
  accountId: text("account_id")
    .notNull()
    .references(() => accounts.id),
  expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  /** Set when the link signs in; a used link never signs in again. */
  usedAt: timestamp("used_at", { withTimezone: true }),
  createdAt: createdAt(),
});

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
    /** `charge`, `reversal` (of a charge whose request failed), `grant`, or `refill` (the plan's monthly credits). */
    kind: text("kind").notNull(),
    /** The operation charged, as `METHOD /path`. */
    operation: text("operation"),
    requestId: text("request_id"),
    reason: text("reason"),
    /**
     * Names one charge, so that a charge whose answer the connection lost can be found and
     * reversed (`Credits`); its reversal carries the same key.
     */
    chargeKey: text("charge_key"),
    createdAt: createdAt(),
  },
  (table) => [
    index("credit_ledger_account_time_idx").on(table.accountId, table.createdAt),
    uniqueIndex("credit_ledger_charge_key_idx").on(table.chargeKey, table.kind),
    check("credit_ledger_kind", sql`${table.kind} in ('charge', 'reversal', 'grant', 'refill')`),
  ],
);

/**
 * The sliding 60-second window of one allowance, in 61 one-second buckets (docs/decisions.md,
 * rule 6): bucket `epoch second mod 61` counts the requests admitted in that second and keeps the
 * latest one's time. A bucket counts until its latest request is 60 seconds old, so no request
 * leaves the window before it would in an exact one, and none stays more than a second longer.
 * An admission costs the same however high the allowance's limit.
 */
export const rateWindows = pgTable("rate_windows", {
  /** `<allowance>:<account id>`, or `request:<key id>` for a key's own lower limit. */
  scope: text("scope").primaryKey(),
  counts: integer("counts").array().notNull().default(sql`array_fill(0, array[61])`),
  latest: timestamp("latest", { withTimezone: true, precision: 6 })
    .array()
    .notNull()
    .default(sql`array_fill('-infinity'::timestamptz, array[61])`),
});

/**
 * An account's slots in use, by pool: `extraction` for requests (docs/decisions.md, rule 7),
 * `transcription` for the plan's jobs running at once on any worker, `webhook_account` for its
 * webhook attempts in flight; `webhook_host` counts the attempts in flight to one receiver, its
 * `account_id` holding the host (name and port). A lease that is not renewed expires, so a dead process frees its slots.
 */
export const slotLeases = pgTable(
  "slot_leases",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id").notNull(),
    pool: text("pool", { enum: ["extraction", "transcription", "webhook_account", "webhook_host"] })
      .notNull()
      .default("extraction"),
    /** The process holding the lease; it renews all its leases together. */
    holder: text("holder").notNull(),
    acquiredAt: timestamp("acquired_at", { withTimezone: true }).notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  },
  (table) => [
    index("slot_leases_account_idx").on(table.accountId, table.pool, table.expiresAt),
    index("slot_leases_holder_idx").on(table.holder),
  ],
);

/** Stored responses of requests sent with an `Idempotency-Key` (docs/decisions.md, rule 9). */
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
    /** `json`, not `jsonb`: a replay answers the very bytes of the first response, keys in their order. */
    responseBody: json("response_body"),
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

/**
 * Every transcript kept to be served again, captions or speech, whatever the platform: one row
 * per platform, item, language and kind. The kind is the caption kind with, for a translation,
 * the language it was translated from, or the speech model that made it.
 */
export const storedTranscripts = pgTable(
  "stored_transcripts",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    /** The item's platform; media read by its address is kept as the platform a link to the file is. */
    platform: text("platform").notNull(),
    /** The item: the platform's id, or the address of media read by its address (any feed or page to it is one). */
    videoId: text("video_id").notNull(),
    /** BCP-47 language of the transcript; null when its source did not say (a YouTube transcript-panel answer). */
    language: text("language"),
    /** `manual` or `auto` for captions; null for speech, or when the platform did not say. */
    captionKind: text("caption_kind"),
    /**
     * For a platform's translation of a track (`translate_to`): the language of the track it was
     * translated from; null for a track as the platform serves it. A translation into German is
     * another row than the item's own German track, automatic or not.
     */
    sourceLanguage: text("source_language"),
    /**
     * The engine and model (`<engine>:<model>`) that recognised the speech; '' for captions.
     * Another decoding of the same model makes no other transcript.
     */
    speechModel: text("speech_model").notNull().default(""),
    /** The wire's `speech_engine` block of the recognition; null for captions. */
    speechEngine: jsonb("speech_engine").$type<Record<string, unknown>>(),
    title: text("title"),
    channel: text("channel"),
    /** Seconds: the platform's for captions; for speech the media's as decoded, which prices every delivery. */
    durationSeconds: doublePrecision("duration_seconds"),
    thumbnailUrl: text("thumbnail_url"),
    /** `[{start, duration, text, speaker?}]` in seconds. */
    segments: jsonb("segments").$type<Array<{ start: number; duration: number; text: string }>>().notNull(),
    /**
     * `segments` as JSON text, kept beside them: a store hit splices it into its answer, and printing
     * the jsonb on every hit cost the database about 0.1-0.2 ms (docs/performance.md).
     */
    segmentsText: text("segments_text").notNull().generatedAlwaysAs(sql`segments::text`),
    /**
     * SHA-256 of the language and segments as the library hashes them, written with the segments:
     * a store hit records its delivery in the library without hashing the words again.
     */
    contentHash: text("content_hash").notNull(),
    /** UTF-8 bytes of the segments' texts joined by single spaces (`usage.bytes`), written with the segments. */
    textBytes: integer("text_bytes").notNull(),
    /**
     * The words of each segment as the source timed them (`[{text, start, duration}]`, null for a
     * segment it did not time), in the order of `segments`; null when it timed none, and on tracks
     * stored before word times were kept. Apart from `segments`, which a response splices in as stored.
     */
    segmentWords:
      jsonb("segment_words").$type<Array<Array<{ text: string; start: number; duration: number }> | null>>(),
    /**
     * The item's chapters when the transcript was kept (`[{title, start, end}]`), whatever its
     * source; empty when it has none, null on transcripts kept before chapters were.
     */
    chapters: jsonb("chapters").$type<Array<{ title: string; start: number; end: number | null }>>(),
    fetchedAt: timestamp("fetched_at", { withTimezone: true }).notNull(),
  },
  (table) => [
    unique("stored_transcripts_key")
      .on(table.platform, table.videoId, table.language, table.captionKind, table.sourceLanguage, table.speechModel)
      .nullsNotDistinct(),
    check("stored_transcripts_caption_kind", sql`${table.captionKind} in ('manual', 'auto')`),
  ],
);

/**
 * Which stored track answers an item requested in a language ('' when none was asked for) and
 * translated into `translate_to` ('' when no translation was asked for), for the platforms whose
 * items the store serves before they are resolved again: a request for a translation never meets
 * the untranslated track, nor the other way round.
 */
export const captionChoices = pgTable(
  "caption_choices",
  {
    platform: text("platform").notNull(),
    videoId: text("video_id").notNull(),
    requestedLanguage: text("requested_language").notNull(),
    translateTo: text("translate_to").notNull().default(""),
    transcriptId: bigint("transcript_id", { mode: "number" })
      .notNull()
      .references(() => storedTranscripts.id, { onDelete: "cascade" }),
  },
  (table) => [primaryKey({ columns: [table.platform, table.videoId, table.requestedLanguage, table.translateTo] })],
);

/** A secret the service keeps for itself (the cursor-signing key), made once and shared by every process. */
export const serviceSecrets = pgTable("service_secrets", {
  name: text("name").primaryKey(),
  value: text("value").notNull(),
  createdAt: createdAt(),
});

/**
 * A speech-recognition job (docs/decisions.md, rule 13). The queue row (pg-boss) drives the work;
 * this row is what the account sees, and moves once from `processing` to `completed` or
 * `failed`. The charge is written in the same transaction as the move to `completed`.
 */
export const transcriptJobs = pgTable(
  "transcript_jobs",
  {
    /** `job_<ulid>`. */
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    status: text("status").notNull(),
    /** What `data.video_id` says: the id or address the request named. */
    videoId: text("video_id").notNull(),
    /** The wire's `platform` of the item. */
    platform: text("platform").notNull(),
    /** The validated request body the job was made from. */
    request: jsonb("request").$type<Record<string, unknown>>().notNull(),
    /** What the source resolved to (media address, podcast block, known metadata). */
    source: jsonb("source").$type<Record<string, unknown>>(),
    /** 0 to 1 while processing. */
    progress: doublePrecision("progress").notNull().default(0),
    /** What the job is expected to cost (by the media's known length, else the minimum): held against the balance while it runs. */
    estimatedCredits: integer("estimated_credits").notNull().default(1),
    /** The transcript `data` of a completed job. */
    result: jsonb("result").$type<Record<string, unknown>>(),
    /** `{code, message}` of a failed job. */
    error: jsonb("error").$type<Record<string, unknown>>(),
    /** The `usage` block of a completed job: charged once, on completion. */
    usage: jsonb("usage").$type<Record<string, unknown>>(),
    callbackUrl: text("callback_url"),
    /** The request that made the job; its charge is recorded under it. */
    requestId: text("request_id").notNull(),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
  },
  (table) => [
    index("transcript_jobs_account_idx").on(table.accountId, table.createdAt),
    // Admission counts the unfinished jobs on every new one; finished jobs stay out of the index.
    index("transcript_jobs_processing_idx").on(table.createdAt).where(sql`${table.status} = 'processing'`),
    check("transcript_jobs_status", sql`${table.status} in ('processing', 'completed', 'failed')`),
    check("transcript_jobs_progress", sql`${table.progress} >= 0 and ${table.progress} <= 1`),
  ],
);

/**
 * One event to deliver to an account's webhook endpoint (job callbacks, later monitors). Its id
 * is the stable `webhook-id` of every attempt.
 */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    /** The event id, `evt_<ulid>` (docs/decisions.md, rule 13), sent as `webhook-id`. */
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    eventType: text("event_type").notNull(),
    url: text("url").notNull(),
    /** The monitor whose event this is: signed with the monitor's secret, and gone with the monitor. */
    monitorId: text("monitor_id").references(() => monitors.id, { onDelete: "cascade" }),
    /** `json`, not `jsonb`: it keeps the payload's key order, so the body reads as the event was written. */
    payload: json("payload").$type<Record<string, unknown>>().notNull(),
    /** `pending` until a 2xx (`delivered`) or the retry schedule runs out (`failed`). */
    status: text("status").notNull(),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }),
    deliveredAt: timestamp("delivered_at", { withTimezone: true }),
    createdAt: createdAt(),
  },
  (table) => [
    index("webhook_deliveries_due_idx").on(table.status, table.nextAttemptAt),
    index("webhook_deliveries_account_idx").on(table.accountId, table.createdAt),
    check("webhook_deliveries_status", sql`${table.status} in ('pending', 'delivered', 'failed')`),
  ],
);

/** The delivery log: every attempt and what the endpoint answered. */
export const webhookAttempts = pgTable(
  "webhook_attempts",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    deliveryId: text("delivery_id")
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: "cascade" }),
    attempt: integer("attempt").notNull(),
    attemptedAt: timestamp("attempted_at", { withTimezone: true }).notNull(),
    /** The endpoint's HTTP status; null when no answer came. */
    responseStatus: integer("response_status"),
    /** Why the attempt failed, when it did. */
    error: text("error"),
    durationMs: integer("duration_ms").notNull(),
  },
  (table) => [index("webhook_attempts_delivery_idx").on(table.deliveryId, table.attempt)],
);

/**
 * Where a list cursor resumes. YouTube's continuation tokens grow past 4 KB deep into a
 * channel, so cursors name a stored position instead of carrying the token.
 */
export const listPositions = pgTable(
  "list_positions",
  {
    /** Random; the signed cursor carries it. */
    id: text("id").primaryKey(),
    /** A hash of the list (target and order) the position belongs to. */
    listIdentity: text("list_identity").notNull(),
    /** YouTube's token of the upstream page the next page starts in; null for the list's first page. */
    continuation: text("continuation"),
    /** Rows of that upstream page already returned. */
    skip: integer("skip").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  },
  (table) => [index("list_positions_expiry_idx").on(table.expiresAt)],
);

/**
 * A channel tab checked on a schedule (docs/decisions.md, rule 14). `seen_video_ids` is what the
 * monitor already knows: a check reports the videos listed before the first of them.
 */
export const monitors = pgTable(
  "monitors",
  {
    /** `mon_<ulid>`. */
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    /** The channel as the client gave it. */
    target: text("target").notNull(),
    tab: text("tab").notNull(),
    name: text("name"),
    status: text("status").notNull(),
    intervalMinutes: integer("interval_minutes").notNull(),
    transcripts: boolean("transcripts").notNull(),
    webhookUrl: text("webhook_url"),
    /** The Standard Webhooks secret (`whsec_...`) of this monitor's deliveries. */
    webhookSecret: text("webhook_secret").notNull(),
    /**
     * The newest videos already reported or baselined, newest first (at most `seenVideoLimit`):
     * more than one, so a deleted newest video does not make the whole tab look new.
     */
    seenVideoIds: jsonb("seen_video_ids").$type<string[]>().notNull(),
    /** When the scheduler checks next; `null` while paused. */
    nextCheckAt: timestamp("next_check_at", { withTimezone: true }),
    /** A scheduled check in progress holds the monitor until then; a dead worker's claim lapses. */
    claimedUntil: timestamp("claimed_until", { withTimezone: true }),
    lastCheckedAt: timestamp("last_checked_at", { withTimezone: true }),
    /** The error block of the last check, with `at`; `null` after a check that succeeded. */
    lastError: jsonb("last_error").$type<Record<string, unknown>>(),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    index("monitors_account_idx").on(table.accountId, table.id),
    index("monitors_due_idx").on(table.nextCheckAt).where(sql`${table.status} = 'active'`),
    check("monitors_status", sql`${table.status} in ('active', 'paused')`),
    check("monitors_interval", sql`${table.intervalMinutes} in (15, 60, 360, 1440)`),
  ],
);

/** A monitor's events, as `GET /monitors/{id}/events` lists them and webhooks deliver them. */
export const monitorEvents = pgTable(
  "monitor_events",
  {
    /** `evt_<ulid>`: time-ordered, the `webhook-id` of its delivery. */
    id: text("id").primaryKey(),
    monitorId: text("monitor_id")
      .notNull()
      .references(() => monitors.id, { onDelete: "cascade" }),
    accountId: text("account_id").notNull(),
    type: text("type").notNull(),
    /** The event as delivered (without `delivery`); `json` keeps its key order. */
    body: json("body").$type<Record<string, unknown>>().notNull(),
    /** Whether the event went to a webhook: its delivery row has the event's id. */
    delivered: boolean("delivered").notNull(),
    createdAt: createdAt(),
  },
  (table) => [
    index("monitor_events_monitor_idx").on(table.monitorId, table.id),
    index("monitor_events_account_idx").on(table.accountId, table.id),
  ],
);

/**
 * The transcript of one new video a monitor still owes: written with the `monitor.videos` event
 * that reported the video, done when its `monitor.transcript` event is written. A worker that
 * dies while fetching it leaves the claim to lapse, and another takes it up.
 */
export const monitorTranscriptTasks = pgTable(
  "monitor_transcript_tasks",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    monitorId: text("monitor_id")
      .notNull()
      .references(() => monitors.id, { onDelete: "cascade" }),
    videosEventId: text("videos_event_id").notNull(),
    videoId: text("video_id").notNull(),
    /** `pending` (to fetch), `awaiting_job` (a speech job runs), `done`. */
    status: text("status").notNull(),
    jobId: text("job_id"),
    claimedUntil: timestamp("claimed_until", { withTimezone: true }),
    createdAt: createdAt(),
  },
  (table) => [
    index("monitor_transcript_tasks_pending_idx").on(table.claimedUntil).where(sql`${table.status} = 'pending'`),
    index("monitor_transcript_tasks_job_idx").on(table.jobId),
    check("monitor_transcript_tasks_status", sql`${table.status} in ('pending', 'awaiting_job', 'done')`),
  ],
);

/** A `tsvector`: the words of a text as PostgreSQL full-text search indexes them. */
const tsvector = customType<{ data: string }>({ dataType: () => "tsvector" });

/**
 * A transcript an account has received, through any operation: one row per account and video
 * (`video_key`), whose `fetched_at` a later delivery refreshes. Its words are in `library_passages`.
 */
export const libraryEntries = pgTable(
  "library_entries",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    /** `<platform>:<video_id>`: the same video through another language or source stays one entry. */
    videoKey: text("video_key").notNull(),
    videoId: text("video_id").notNull(),
    platform: text("platform").notNull(),
    url: text("url"),
    title: text("title"),
    channel: text("channel"),
    language: text("language"),
    source: text("source").notNull(),
    durationSeconds: doublePrecision("duration_seconds"),
    /** The text search configuration (`english`, `german`, ..., `simple`) its passages were indexed with. */
    searchConfig: text("search_config").notNull(),
    /** SHA-256 of the segments: a delivery of the same words refreshes `fetched_at` without indexing them again. */
    contentHash: text("content_hash").notNull(),
    fetchedAt: timestamp("fetched_at", { withTimezone: true, precision: 6 }).notNull(),
  },
  (table) => [
    unique("library_entries_video").on(table.accountId, table.videoKey),
    // DESC NULLS FIRST, the order of `order by ... desc`: an index in another null order is not used for it.
    index("library_entries_newest_idx").on(
      table.accountId,
      table.fetchedAt.desc().nullsFirst(),
      table.id.desc().nullsFirst(),
    ),
    // A search first reads the configurations of the account's entries, skipping from one to the next.
    index("library_entries_config_idx").on(table.accountId, table.searchConfig),
  ],
);

/**
 * About a minute of a library entry's segments, indexed for full-text search: small enough that
 * a match names the moment it happened, large enough that a phrase rarely straddles two rows.
 */
export const libraryPassages = pgTable(
  "library_passages",
  {
    entryId: bigint("entry_id", { mode: "number" })
      .notNull()
      .references(() => libraryEntries.id, { onDelete: "cascade" }),
    /** Where the passage is in its transcript, from 0. */
    position: integer("position").notNull(),
    /** The segments' texts joined by single spaces. */
    text: text("text").notNull(),
    /** Start time of each segment, in seconds. */
    segmentStarts: doublePrecision("segment_starts").array().notNull(),
    /** Where each segment's text begins in `text`, in characters. */
    segmentOffsets: integer("segment_offsets").array().notNull(),
    /**
     * When the source timed every word of the passage: each word's start and duration in seconds,
     * word by word as `text` splits at spaces; null when it did not, and on passages indexed before.
     */
    wordStarts: doublePrecision("word_starts").array(),
    wordDurations: doublePrecision("word_durations").array(),
    /** `text` under the entry's search configuration. */
    words: tsvector("words").notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.entryId, table.position] }),
    index("library_passages_words_idx").using("gin", table.words),
  ],
);

/**
 * One row per running worker process, written every few seconds: API processes read them to
 * report workers they cannot see, and a stale row means its worker stopped reporting.
 */
export const workerHeartbeats = pgTable("worker_heartbeats", {
  /** `wrk_<ulid>`, logged by the worker when it starts; no host name, since the deep health check shows it to keys. */
  id: text("id").primaryKey(),
  startedAt: timestamp("started_at", { withTimezone: true }).notNull(),
  lastSeenAt: timestamp("last_seen_at", { withTimezone: true }).notNull(),
});

/**
 * A live session (docs/decisions.md, rule 16): one stream transcribed as it plays, held by one
 * worker at a time through a lease it renews. Every write of the holder is conditional on
 * `lease_owner`, so a worker that lost the session can neither record nor charge anything more.
 */
export const liveSessions = pgTable(
  "live_sessions",
  {
    /** `live_<ulid>`. */
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    /** `waiting`, `live`, then `ended`, `stopped` or `failed`. */
    status: text("status").notNull(),
    /** Why an `ended` or `stopped` session ended. */
    endReason: text("end_reason"),
    /** `{code, message}` of a `failed` session. */
    error: jsonb("error").$type<Record<string, unknown>>(),
    /** The address as the request sent it. */
    url: text("url").notNull(),
    /** The wire's `source` block: platform, how it is read, the platform's id, title and channel. */
    source: jsonb("source").$type<Record<string, unknown>>().notNull(),
    /**
     * How a worker reaches the stream: a playlist or radio address given directly, or the
     * platform page that is resolved again each time (its media addresses are signed and expire).
     */
    stream: jsonb("stream").$type<Record<string, unknown>>().notNull(),
    language: text("language"),
    partials: boolean("partials").notNull(),
    maxMinutes: integer("max_minutes").notNull(),
    webhookUrl: text("webhook_url"),
    /** The `POST /live` request: every minute's charge is recorded under it. */
    requestId: text("request_id").notNull(),
    /** The base of `error.docs` links in what the session records, taken from that request. */
    docsBaseUrl: text("docs_base_url").notNull(),
    createdAt: createdAt(),
    startedAt: timestamp("started_at", { withTimezone: true }),
    endedAt: timestamp("ended_at", { withTimezone: true }),
    /** Set by `DELETE /live/{id}`: the holder ends the session as `stopped` at its next step. */
    stopRequestedAt: timestamp("stop_requested_at", { withTimezone: true }),
    /** When a worker may claim the session: now for a new one, later for one waiting for its stream to start. */
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }).notNull(),
    /** The worker holding the session, until `lease_expires_at`. */
    leaseOwner: text("lease_owner"),
    leaseExpiresAt: timestamp("lease_expires_at", { withTimezone: true }),
    /** Seconds of audio recognised: what is billed. */
    audioSeconds: doublePrecision("audio_seconds").notNull().default(0),
    /** Where the recognised audio ends on the session's timeline, which counts gaps too. */
    timelineSeconds: doublePrecision("timeline_seconds").notNull().default(0),
    /** Minutes charged, 1 credit each; only the lease holder moves it, one minute at a time. */
    chargedMinutes: integer("charged_minutes").notNull().default(0),
    /** The `seq` of the newest event in `live_events`. */
    lastSeq: bigint("last_seq", { mode: "number" }).notNull().default(0),
    /** The newest partial (`{version, start, text}`), replaced as words are heard; not an event. */
    partial: jsonb("partial").$type<Record<string, unknown>>(),
    /** Where the reader stood at its last segment (`{media_sequence}` of a playlist), for a takeover's gap. */
    position: jsonb("position").$type<Record<string, unknown>>(),
    /** The newest segment handed to the webhook, and when: segments are batched at most every few seconds. */
    webhookSentSeq: bigint("webhook_sent_seq", { mode: "number" }).notNull().default(0),
    webhookSentAt: timestamp("webhook_sent_at", { withTimezone: true }),
    /** The library entry of the finished transcript, once the session is over. */
    libraryEntry: text("library_entry"),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    index("live_sessions_account_idx").on(table.accountId, table.id),
    // Workers look for sessions to claim, admission counts the running ones: finished sessions stay out.
    index("live_sessions_running_idx").on(table.nextAttemptAt).where(sql`${table.status} in ('waiting', 'live')`),
    check("live_sessions_status", sql`${table.status} in ('waiting', 'live', 'ended', 'stopped', 'failed')`),
    check(
      "live_sessions_end_reason",
      sql`${table.endReason} is null or ${table.endReason} in ('stream_ended', 'max_minutes', 'insufficient_credits', 'stopped')`,
    ),
    check("live_sessions_charged_minutes", sql`${table.chargedMinutes} >= 0`),
  ],
);

/**
 * The durable events of a live session, numbered from 1 in the order they happened: each is
 * committed before it is announced, and `Last-Event-ID` replays them from here.
 */
export const liveEvents = pgTable(
  "live_events",
  {
    sessionId: text("session_id")
      .notNull()
      .references(() => liveSessions.id, { onDelete: "cascade" }),
    seq: bigint("seq", { mode: "number" }).notNull(),
    type: text("type").notNull(),
    /** The event as sent; `json` keeps its key order. */
    body: json("body").$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
  },
  (table) => [
    primaryKey({ columns: [table.sessionId, table.seq] }),
    check(
      "live_events_type",
      sql`${table.type} in ('live.started', 'live.segment', 'live.gap', 'live.ended', 'live.failed')`,
    ),
  ],
);
