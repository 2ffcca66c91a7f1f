// `npx tsx bench/library.ts` (part of `pnpm bench`): p50 and p99 of POST /library/search's work
// (`TranscriptLibrary.search`: the match, the page and the highlighted snippets) over one account's
// library of VERBATIM_BENCH_LIBRARY_TRANSCRIPTS (default 10,000) transcripts of realistic length,
// on PostgreSQL, and on PGlite up to 10,000. The transcripts are written as deliveries record them,
// a thousand per statement, with words drawn from a Zipf distribution, so common words are in most
// passages and rare ones in a few, as in speech. Goal (issue 35): p50 under 20 ms on PostgreSQL, at
// 100,000 transcripts too.
import { availableParallelism, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { type SQL, sql } from "drizzle-orm";
import { createPlatform } from "../src/assembly/platform.ts";
import { passagesOf } from "../src/services/kept/library-passages.ts";
import type { FullTranscript } from "../src/services/kept/transcript-store.ts";
import { openEmbeddedStore, openPostgresStore, type Store } from "../src/store/database.ts";
import { contentHashOf, searchConfigOf } from "../src/store/statements/library-entry.ts";
import { benchServerUrl, createBenchDatabase, serverSettings } from "./postgres.ts";
import { textTable } from "./report.ts";

const transcriptCount = Number(process.env.VERBATIM_BENCH_LIBRARY_TRANSCRIPTS || 10_000);
/** Timed searches per query of the mix, after one untimed round. */
const rounds = Number(process.env.VERBATIM_BENCH_LIBRARY_ROUNDS || 25);
const pageSize = 10;
/** The largest library measured on PGlite, which the embedded default serves to one person's scale. */
const embeddedMaxTranscripts = 10_000;
/** Transcripts written per statement when the library is seeded. */
const seedBatch = 1_000;
/** When the first seeded transcript was fetched. */
const seedEpoch = Date.parse("2026-01-01T00:00:00Z");

/** Speech runs about 150 words a minute, in caption segments of about 4 seconds. */
const wordsPerMinute = 150;
const segmentSeconds = 4;
/** Video lengths in minutes: YouTube's middle is around ten, with a long tail of talks and podcasts. */
const minutesOf = (random: () => number) => Math.min(90, 2 + -Math.log(1 - random()) * 10);

/** Function words make about half of speech; the stemmer drops them, but they make the text (and the headline) long. */
const functionWords =
  "the and to of a i you that it in is we was so this for they but on with be have what like not are do just it's know as at there can if all one about".split(
    " ",
  );
/** Content words, ranked by frequency; made of syllables so that each is a distinct stem. */
const vocabularySize = 30_000;
const syllables = "ka lo mi ra ne to su vi pe da ri no fa le go ma zu te bi ho".split(" ");

function contentWord(rank: number): string {
  let word = "";
  let rest = rank + 1;
  do {
    word += syllables[rest % syllables.length];
    rest = Math.floor(rest / syllables.length);
  } while (rest > 0);
  return `${word}n`;
}

/** A seeded generator (mulberry32), so every run and engine searches the same library. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Ranks drawn from Zipf's law (s = 1) by inverting its cumulative distribution. */
function zipfSampler(size: number): (random: () => number) => number {
  const cumulative = new Float64Array(size);
  let total = 0;
  for (let rank = 0; rank < size; rank++) {
    total += 1 / (rank + 1);
    cumulative[rank] = total;
  }
  return (random) => {
    const target = random() * total;
    let low = 0;
    let high = size - 1;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((cumulative[middle] ?? 0) < target) low = middle + 1;
      else high = middle;
    }
    return low;
  };
}

const zipf = zipfSampler(vocabularySize);

function transcriptOf(index: number): FullTranscript {
  const random = seeded(index + 1);
  const minutes = minutesOf(random);
  const segments: FullTranscript["segments"] = [];
  const wordsPerSegment = Math.round((wordsPerMinute / 60) * segmentSeconds);
  for (let start = 0; start < minutes * 60; start += segmentSeconds) {
    const words: string[] = [];
    for (let word = 0; word < wordsPerSegment; word++) {
      words.push(
        random() < 0.5
          ? (functionWords[Math.floor(random() * functionWords.length)] ?? "the")
          : contentWord(zipf(random)),
      );
    }
    segments.push({ start, duration: segmentSeconds, text: words.join(" ") });
  }
  const videoId = `bench${String(index).padStart(6, "0")}`;
  return {
    kind: "transcript",
    video_id: videoId,
    url: `https://www.youtube.com/watch?v=${videoId}`,
    platform: "youtube",
    title: `Video ${index}`,
    channel: `Channel ${index % 200}`,
    duration: minutes * 60,
    language: "en",
    source: "captions",
    caption_kind: "auto",
    thumbnail_url: null,
    speakers: null,
    speech_engine: null,
    segments,
    text: segments.map((segment) => segment.text).join(" "),
  };
}

/** The searches timed: from a word in most transcripts to one in a handful, with the query syntax. */
function queryMix(): Array<{ name: string; query: string }> {
  const phraseSource = transcriptOf(7)
    .segments[3]?.text.split(" ")
    .filter((word) => !functionWords.includes(word));
  return [
    { name: "common word (rank 20)", query: contentWord(20) },
    { name: "medium word (rank 500)", query: contentWord(500) },
    { name: "rare word (rank 20,000)", query: contentWord(20_000) },
    { name: "two medium words", query: `${contentWord(400)} ${contentWord(600)}` },
    { name: "phrase of a transcript", query: `"${phraseSource?.slice(0, 2).join(" ")}"` },
    { name: "rare or rare", query: `${contentWord(15_000)} or ${contentWord(25_000)}` },
    { name: "medium -common", query: `${contentWord(500)} -${contentWord(20)}` },
    { name: "absent word", query: "zzyzx" },
  ];
}

interface EngineResult {
  label: string;
  loadSeconds: number;
  passages: number;
  all: number[];
  byQuery: Map<string, number[]>;
}

async function measure(label: string, store: Store, concurrency: number): Promise<EngineResult> {
  const platform = await createPlatform(store, { now: () => new Date() });
  const { account } = await platform.accounts.create({ plan: "scale", name: "bench library" });
  const started = performance.now();
  await load(store, account.id, concurrency);
  const loadSeconds = (performance.now() - started) / 1000;
  // A bulk load outruns autovacuum: statistics as a running server would have them.
  await store.executeSql("analyze library_entries; analyze library_passages");
  const [counted] = (await store.executeSql("select count(*)::int as passages from library_passages")).rows as Array<{
    passages: number;
  }>;
  const queries = queryMix();
  const byQuery = new Map(queries.map((query) => [query.name, [] as number[]]));
  const all: number[] = [];
  for (let round = -1; round < rounds; round++) {
    for (const { name, query } of queries) {
      const before = performance.now();
      await platform.library.search(account.id, { query, limit: pageSize });
      const elapsed = performance.now() - before;
      if (round < 0) continue;
      all.push(elapsed);
      byQuery.get(name)?.push(elapsed);
    }
  }
  platform.slots.close();
  return { label, loadSeconds, passages: counted?.passages ?? 0, all, byQuery };
}

/**
 * Writes the library as `record` would, `seedBatch` transcripts per statement: each transcript's
 * entry (its search configuration and content hash as `libraryEntryUpsert` computes them) and its
 * passages (`passagesOf`, indexed with `to_tsvector`). Recording one at a time took over 15 minutes
 * for 100,000 transcripts (issue 35); the search reads the same rows either way.
 */
async function load(store: Store, accountId: string, concurrency: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let first = next; first < transcriptCount; first = next) {
      next = Math.min(transcriptCount, first + seedBatch);
      await store.query(seedStatement(accountId, first, next));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

function seedStatement(accountId: string, first: number, end: number): SQL {
  const rows = [];
  for (let index = first; index < end; index++) {
    const transcript = transcriptOf(index);
    rows.push({
      video_id: transcript.video_id,
      url: transcript.url,
      title: transcript.title,
      channel: transcript.channel,
      language: transcript.language,
      duration: transcript.duration,
      segments: transcript.segments,
      passages: passagesOf(transcript.segments),
      // Apart by a millisecond each, in recording order, as deliveries one after the other would be.
      fetched_at: new Date(seedEpoch + index).toISOString(),
    });
  }
  const language = sql`r.language`;
  return sql`
    with rows as (
      select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
        as r(video_id text, url text, title text, channel text, language text, duration float8, segments jsonb,
             passages jsonb, fetched_at timestamptz)
    ),
    entries as (
      insert into library_entries (account_id, video_key, video_id, platform, url, title, channel, language, source,
                                   duration_seconds, search_config, content_hash, fetched_at)
      select ${accountId}, 'youtube:' || r.video_id, r.video_id, 'youtube', r.url, r.title, r.channel, ${language},
             'captions', r.duration, ${searchConfigOf(language)}, ${contentHashOf(language, sql`r.segments`)}, r.fetched_at
        from rows r
      returning id, video_id, search_config
    )
    insert into library_passages (entry_id, position, text, segment_starts, segment_offsets, word_starts,
                                  word_durations, words)
    select e.id, p.position, p.text, p.starts, p.offsets, p."wordStarts", p."wordDurations",
           to_tsvector(e.search_config::regconfig, p.text)
      from entries e
      join rows r on r.video_id = e.video_id,
           jsonb_to_recordset(r.passages)
             as p(position integer, text text, starts double precision[], offsets integer[],
                  "wordStarts" double precision[], "wordDurations" double precision[])`;
}

function percentile(values: number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? Number.NaN;
}

function report(results: EngineResult[]): void {
  const names = queryMix().map((query) => query.name);
  console.log("");
  console.log(
    textTable(
      ["search", ...results.flatMap((result) => [`${result.label} p50 ms`, `${result.label} p99 ms`])],
      [
        ...names.map((name) => [
          name,
          ...results.flatMap((result) => {
            const times = result.byQuery.get(name) ?? [];
            return [percentile(times, 0.5).toFixed(1), percentile(times, 0.99).toFixed(1)];
          }),
        ]),
        [],
        [
          "all searches",
          ...results.flatMap((result) => [
            percentile(result.all, 0.5).toFixed(1),
            percentile(result.all, 0.99).toFixed(1),
          ]),
        ],
      ],
    ),
  );
  console.log("");
  for (const result of results) {
    console.log(
      `${result.label}: ${transcriptCount.toLocaleString("en-US")} transcripts in ${result.passages.toLocaleString("en-US")} passages, recorded in ${result.loadSeconds.toFixed(0)} s; ${result.all.length} timed searches of ${pageSize} hits.`,
    );
  }
  const postgres = results.find((result) => result.label === "PostgreSQL");
  if (postgres) {
    const p50 = percentile(postgres.all, 0.5);
    console.log(`Goal: p50 under 20 ms on PostgreSQL: ${p50.toFixed(1)} ms, ${p50 < 20 ? "met" : "NOT met"}.`);
  }
}

async function main(): Promise<void> {
  console.log(`Library search over ${transcriptCount.toLocaleString("en-US")} transcripts of one account`);
  // The machine may be shared: the load before starting says how far the figures are depressed.
  console.log(`Load average ${loadavg()[0]?.toFixed(2)} on ${availableParallelism()} cores before starting.`);
  const results: EngineResult[] = [];
  const database = await createBenchDatabase(benchServerUrl());
  if ("unreachable" in database) {
    console.log(`PostgreSQL is unreachable (${database.unreachable}); skipping it.`);
  } else {
    console.log(await serverSettings(database.url));
    const store = await openPostgresStore(database.url);
    try {
      results.push(await measure("PostgreSQL", store, 4));
    } finally {
      await store.close();
      await database.drop();
    }
  }
  if (transcriptCount > embeddedMaxTranscripts) {
    console.log(
      `PGlite skipped: above ${embeddedMaxTranscripts.toLocaleString("en-US")} transcripts its in-memory cluster would hold every passage in this process.`,
    );
  } else {
    const embedded = await openEmbeddedStore();
    try {
      results.push(await measure("PGlite", embedded, 1));
    } finally {
      await embedded.close();
    }
  }
  report(results);
}

await main();
