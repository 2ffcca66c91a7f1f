import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { sql } from "drizzle-orm";
import { drizzle as drizzlePostgres } from "drizzle-orm/node-postgres";
import { migrate as migratePostgres } from "drizzle-orm/node-postgres/migrator";
import { PgDialect } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TranscriptStore } from "../../src/services/kept/transcript-store.ts";
import { openEmbeddedStore, openPostgresStore, type Store } from "../../src/store/database.ts";
import { createPostgresDatabase, databaseUrl, type PostgresDatabase } from "./helpers.ts";

// Migration 0018 (one store) on a store holding what 0017 kept: YouTube's caption tracks and
// choices, speech transcripts and other platforms' caption tracks in audio_transcripts (keyed by
// text), and running jobs whose work names their media by kind. Every row is carried over, word
// times included, and found again by the new store's key.

const migrations = fileURLToPath(new URL("../../src/store/migrations/", import.meta.url));
const lastBefore = "0017_word_times";

const timedSegments = [
  {
    start: 0,
    duration: 2.5,
    text: "ask not",
    words: [
      { text: "ask", start: 0, duration: 1 },
      { text: "not", start: 1, duration: 1.5 },
    ],
  },
  { start: 2.5, duration: 1, text: "what your country" },
];
const fileMedia = "https://media.example.com/ask-not.mp3";
const speechEngine = { engine: "sherpa-onnx", model: "zipformer-gigaspeech-3.3M", decoding: "greedy_search" };
const speechModel = "sherpa-onnx:zipformer-gigaspeech-3.3M";

/** The transcript `data` a 0017 store kept, with `fields` over a speech transcript's. */
function keptTranscript(fields: Record<string, unknown>): Record<string, unknown> {
  return {
    kind: "transcript",
    title: "Ask not",
    channel: "JFK",
    duration: 11.04,
    language: "en",
    source: "audio",
    caption_kind: null,
    thumbnail_url: null,
    speakers: null,
    speech_engine: speechEngine,
    segments: timedSegments,
    text: "ask not what your country",
    ...fields,
  };
}

/** A copy of the migrations up to `lastBefore`: what a store of that version ran. */
function migrationsUpTo0017(): string {
  const folder = mkdtempSync(join(tmpdir(), "verbatim-migrations-"));
  cpSync(migrations, folder, { recursive: true });
  const journalPath = join(folder, "meta", "_journal.json");
  const journal = JSON.parse(readFileSync(journalPath, "utf8")) as { entries: Array<{ tag: string }> };
  const last = journal.entries.findIndex((entry) => entry.tag === lastBefore);
  writeFileSync(journalPath, JSON.stringify({ ...journal, entries: journal.entries.slice(0, last + 1) }));
  return folder;
}

/** What a 0017 store held. */
const legacyRows = sql`
  insert into plans (name, requests_per_minute, polls_per_minute, extraction_slots, batch_workers, max_batch_items, monthly_credits)
  values ('pro', 60, 60, 4, 4, 100, 1000);
  insert into accounts (id, plan, credits, webhook_secret) values ('acct_legacy', 'pro', 100, 'whsec_legacy');
  insert into youtube_transcripts (video_id, language, caption_kind, source_language, title, channel, duration_seconds,
                                   thumbnail_url, segments, fetched_at, content_hash, text_bytes, segment_words)
  values ('GJLlxj_dtq8', 'en', 'auto', null, 'A video', 'A channel', 312, null,
          '[{"start":0,"duration":2.5,"text":"ask not"}]', now(), 'hash-youtube', 7,
          '[[{"text":"ask","start":0,"duration":1},{"text":"not","start":1,"duration":1.5}]]');
  insert into youtube_caption_choices (video_id, requested_language, translate_to, transcript_id)
  select 'GJLlxj_dtq8', 'en', '', id from youtube_transcripts;
  insert into audio_transcripts (source_key, platform, duration_seconds, transcript) values
    (${`speech:sherpa-onnx:zipformer-gigaspeech-3.3M:${fileMedia}`}, 'file', 11.0375,
     ${JSON.stringify(keptTranscript({ video_id: "file_0123456789abcdef", url: fileMedia, platform: "file" }))}::jsonb),
    ('speech:sherpa-onnx:zipformer-gigaspeech-3.3M:https://www.youtube.com/watch?v=dsMFmonKDD4', 'youtube', 200.5,
     ${JSON.stringify(keptTranscript({ video_id: "dsMFmonKDD4", url: "https://www.youtube.com/watch?v=dsMFmonKDD4", platform: "youtube" }))}::jsonb),
    ('captions:tiktok:7400000000000000001:en:auto', 'tiktok', 11,
     ${JSON.stringify(
       keptTranscript({
         video_id: "7400000000000000001",
         url: "https://www.tiktok.com/@verbatim.tests/video/7400000000000000001",
         platform: "tiktok",
         source: "captions",
         caption_kind: "auto",
         duration: 11,
         speech_engine: null,
       }),
     )}::jsonb);
  insert into transcript_jobs (id, account_id, status, video_id, platform, request, source, request_id) values
    ('job_url', 'acct_legacy', 'processing', 'file_0123456789abcdef', 'file', '{}',
     ${JSON.stringify({ work: { media: { kind: "url", url: fileMedia }, store_key: "speech:x", fields: { title: "A file" } }, docs_base_url: "https://verbatim.example" })}::jsonb, 'req_1'),
    ('job_youtube', 'acct_legacy', 'processing', 'dsMFmonKDD4', 'youtube', '{}',
     ${JSON.stringify({ work: { media: { kind: "youtube", videoId: "dsMFmonKDD4" }, store_key: "speech:y", fields: { title: "A video" } }, docs_base_url: "https://verbatim.example" })}::jsonb, 'req_2'),
    ('job_source', 'acct_legacy', 'processing', '7400000000000000002', 'tiktok', '{}',
     ${JSON.stringify({ work: { media: { kind: "source", platform: "tiktok", url: "https://www.tiktok.com/@a/video/7400000000000000002" }, store_key: "speech:z", fields: { title: "A post" } }, docs_base_url: "https://verbatim.example" })}::jsonb, 'req_3')`;

/** A store of version 0017 holding `legacyRows`, migrated since by opening it as the service does. */
async function migratedLegacyStore(): Promise<{ store: Store; drop(): Promise<void> }> {
  const folder = migrationsUpTo0017();
  // Several statements in one: only the simple protocol runs them, which takes no parameters.
  const { sql: text, params } = new PgDialect().sqlToQuery(legacyRows);
  const statements = inlined(text, params);
  try {
    if (databaseUrl) {
      const database: PostgresDatabase = await createPostgresDatabase(databaseUrl);
      const pool = new pg.Pool({ connectionString: database.url, max: 1 });
      await migratePostgres(drizzlePostgres(pool), { migrationsFolder: folder });
      await pool.query(statements);
      await pool.end();
      return { store: await openPostgresStore(database.url), drop: () => database.drop() };
    }
    const pglite = await PGlite.create();
    await migratePglite(drizzlePglite(pglite), { migrationsFolder: folder });
    await pglite.exec(statements);
    const initialDataDir = await pglite.dumpDataDir("none");
    await pglite.close();
    return { store: await openEmbeddedStore(undefined, { initialDataDir }), drop: async () => {} };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** The statement text with its parameters written in as literals. */
function inlined(text: string, params: unknown[]): string {
  return text.replace(
    /\$(\d+)/g,
    (_match, index: string) => `'${String(params[Number(index) - 1]).replaceAll("'", "''")}'`,
  );
}

describe("migration 0018 carries every kept transcript into the one store", () => {
  let store: Store;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    ({ store, drop } = await migratedLegacyStore());
  }, 120_000);
  afterAll(async () => {
    await store?.close();
    await drop?.();
  });

  it("keeps YouTube's tracks as they were, word times included, and its choices as YouTube's", async () => {
    const rows = await store.query(
      sql`select platform, video_id, language, caption_kind, speech_model, segment_words, content_hash, text_bytes
            from stored_transcripts where platform = 'youtube' and speech_model = ''`,
    );
    expect(rows).toEqual([
      {
        platform: "youtube",
        video_id: "GJLlxj_dtq8",
        language: "en",
        caption_kind: "auto",
        speech_model: "",
        segment_words: [timedSegments[0]?.words],
        content_hash: "hash-youtube",
        text_bytes: 7,
      },
    ]);
    const choices = await store.query(
      sql`select platform, video_id, requested_language, translate_to from caption_choices`,
    );
    expect(choices).toEqual([
      { platform: "youtube", video_id: "GJLlxj_dtq8", requested_language: "en", translate_to: "" },
    ]);
  });

  it("and 0019 after it leaves every carried transcript without chapters (null), to be kept with the next fetch", async () => {
    const rows = await store.query<{ chapters: unknown }>(sql`select chapters from stored_transcripts`);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((row) => row.chapters === null)).toBe(true);
  });

  it("moves speech transcripts in under their media's address or their item, their words beside their segments", async () => {
    const rows = await store.query<Record<string, unknown>>(
      sql`select platform, video_id, language, caption_kind, speech_model, speech_engine, duration_seconds, segments,
                 segment_words, text_bytes
            from stored_transcripts where speech_model <> '' order by platform`,
    );
    const segments = timedSegments.map(({ words: _words, ...segment }) => segment);
    const speech = {
      language: "en",
      caption_kind: null,
      speech_model: speechModel,
      speech_engine: speechEngine,
      segments,
      segment_words: [timedSegments[0]?.words, null],
      text_bytes: Buffer.byteLength("ask not what your country"),
    };
    expect(rows).toEqual([
      { platform: "file", video_id: fileMedia, duration_seconds: 11.0375, ...speech },
      { platform: "youtube", video_id: "dsMFmonKDD4", duration_seconds: 200.5, ...speech },
    ]);
    const kept = new TranscriptStore(store, () => new Date());
    expect(await kept.findSpeech({ platform: "file", item: fileMedia }, speechModel)).toMatchObject({
      durationSeconds: 11.0375,
      title: "Ask not",
    });
    expect(await kept.findSpeech({ platform: "youtube", item: "dsMFmonKDD4" }, speechModel)).not.toBeNull();
  });

  it("moves a platform's caption track in by its platform, item, language and kind, and drops audio_transcripts", async () => {
    const rows = await store.query(
      sql`select platform, video_id, language, caption_kind, source_language, speech_model, duration_seconds
            from stored_transcripts where platform = 'tiktok'`,
    );
    expect(rows).toEqual([
      {
        platform: "tiktok",
        video_id: "7400000000000000001",
        language: "en",
        caption_kind: "auto",
        source_language: null,
        speech_model: "",
        duration_seconds: 11,
      },
    ]);
    const [table] = await store.query<{ exists: boolean }>(
      sql`select to_regclass('public.audio_transcripts') is not null as exists`,
    );
    expect(table?.exists).toBe(false);
  });

  it("rewrites a running job's work to name its media as a source reference, and where its transcript is kept", async () => {
    const rows = await store.query<{ id: string; work: Record<string, unknown> }>(
      sql`select id, source -> 'work' as work from transcript_jobs order by id`,
    );
    expect(rows).toEqual([
      {
        id: "job_source",
        work: {
          media: { platform: "tiktok", url: "https://www.tiktok.com/@a/video/7400000000000000002" },
          stored: { platform: "tiktok", item: "7400000000000000002" },
          fields: { title: "A post" },
        },
      },
      {
        id: "job_url",
        work: {
          media: { platform: "file", url: fileMedia },
          stored: { platform: "file", item: fileMedia },
          fields: { title: "A file" },
        },
      },
      {
        id: "job_youtube",
        work: {
          media: { platform: "youtube", url: "https://www.youtube.com/watch?v=dsMFmonKDD4", itemId: "dsMFmonKDD4" },
          stored: { platform: "youtube", item: "dsMFmonKDD4" },
          fields: { title: "A video" },
        },
      },
    ]);
  });
});
