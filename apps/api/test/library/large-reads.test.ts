import { errorTable } from "@verbatim/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { passagesOf, segmentsOfPassages } from "../../src/services/kept/library-passages.ts";
import type { FullTranscript } from "../../src/services/kept/transcript-store.ts";
import {
  renderTranscript,
  type TranscriptFormat,
  textOf,
} from "../../src/services/renderings/transcript-renderings.ts";
import { afterStatements, probeHealthAfterStatements } from "../support/health-probes.ts";
import { type Answer, expectErrorEnvelope, verbatimValidator } from "../support/http.ts";
import { mediaTranscript } from "../support/media-transcripts.ts";
import { describeErrors, responseSchemaPointer } from "../support/openapi.ts";
import { startServer, type TestServer } from "../support/server.ts";
import { testEngine } from "../support/store.ts";

/** The units the contract states for a library read's weight: one request per started 256 KiB of text or 8,192 segments. */
const textBytesPerRequest = 256 * 1024;
const segmentsPerRequest = 8192;

const segmentCount = 20_000;
const videoId = "long-archive";
const entryId = `file:${videoId}`;

/** Words that JSON escapes or that take several UTF-8 bytes, among plain ones. */
const phrases = [
  'she said "ask not" & left',
  "a back\\slash, a <tag> and café",
  "emoji 🎙️ and 日本語 text",
  "plain words about the weather today",
];

/** A long transcript as the transcript service delivers it: many short segments, as captions have. */
function longTranscript(id = videoId, count = segmentCount, lead = ""): FullTranscript {
  const segments = Array.from({ length: count }, (_, index) => ({
    start: index * 2.5,
    duration: 2.5,
    text: `${lead}${index} ${phrases[index % phrases.length]}`,
  }));
  return mediaTranscript({ video_id: id, title: "A long archive", channel: "Example Radio", language: "en", segments });
}

const recorded = longTranscript();
/** The segments as the library gives them back: starts and words, each lasting until the next starts. */
const readBack = segmentsOfPassages(passagesOf(recorded.segments), recorded.duration);
const textBytes = Buffer.byteLength(textOf(readBack));
const weight = Math.max(Math.ceil(textBytes / textBytesPerRequest), Math.ceil(segmentCount / segmentsPerRequest));

let server: TestServer;

beforeAll(async () => {
  server = await startServer({ plan: "pro" });
  await server.platform.library.record(server.account.id, recorded);
});
afterAll(() => server?.close());

/** Reads an entry with a key: the answer's status, headers and raw bytes. */
async function read(query: string, key = server.key.key, id = entryId): Promise<Answer & { bytes: Buffer }> {
  const response = await fetch(`${server.baseUrl}/api/v2/library/${id}?${query}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  const text = bytes.toString("utf8");
  return { status: response.status, headers: response.headers, text, body: JSON.parse(text), bytes };
}

function remainingOf(answer: Answer): number {
  return Number(answer.headers.get("x-ratelimit-remaining"));
}

/**
 * The body the event loop's own renderer writes for the same request: `renderTranscript`'s
 * fields after the entry's, serialised whole, with the answer's request id and entry fields.
 */
function bodyRenderedWhole(answer: Answer, format: TranscriptFormat, chunkSize?: number): string {
  const sent = answer.body as { request_id: string; data: Record<string, unknown>; usage: unknown };
  const renderings = renderTranscript(readBack, { format, ...(chunkSize === undefined ? {} : { chunkSize }) });
  const entryFields = Object.fromEntries(Object.entries(sent.data).filter(([name]) => !(name in renderings)));
  return JSON.stringify({
    ok: true,
    request_id: sent.request_id,
    data: { ...entryFields, ...renderings },
    usage: sent.usage,
  });
}

describe(`GET /library/{id} of a large transcript: 200 (${testEngine})`, () => {
  it("answers other requests between reading the words and answering, as the issue's SubRip with chunks", async () => {
    const events: string[] = [];
    const probes = probeHealthAfterStatements(
      server,
      (sql) => sql.includes("library_passages"),
      () => events.push("health answered"),
    );
    try {
      const large = await fetch(`${server.baseUrl}/api/v2/library/${entryId}?format=srt&chunk_size=100`, {
        headers: { authorization: `Bearer ${server.key.key}` },
      });
      events.push("large answer started");
      await large.arrayBuffer();
      await Promise.all(probes.answered);
    } finally {
      probes.stop();
    }
    expect(probes.answered.length).toBeGreaterThan(0);
    // Every health check asked once the words were read was answered before the large answer began.
    expect(events).toEqual([...probes.answered.map(() => "health answered"), "large answer started"]);
  });

  it.each([
    ["segments", undefined],
    ["text", undefined],
    ["srt", 100],
    ["vtt", 2000],
    ["segments", 500],
  ] as const)(
    "writes %s (chunk_size %s) byte for byte as the whole-body renderer, valid against the contract",
    async (format, chunkSize) => {
      const answer = await read(`format=${format}${chunkSize === undefined ? "" : `&chunk_size=${chunkSize}`}`);
      expect(answer.status, answer.text.slice(0, 500)).toBe(200);
      expect(answer.headers.get("content-type")).toBe("application/json; charset=utf-8");
      expect(Number(answer.headers.get("content-length"))).toBe(answer.bytes.length);
      const { credits } = await server.platform.accounts.planAndBalance(server.account.id);
      expect((answer.body as { usage: unknown }).usage).toEqual({
        credits_spent: 0,
        balance: credits,
        bytes: textBytes,
      });
      expect(answer.bytes.equals(Buffer.from(bodyRenderedWhole(answer, format, chunkSize)))).toBe(true);
      const validator = verbatimValidator();
      const pointer = responseSchemaPointer(validator.document, { path: "/library/{id}", method: "get" }, 200);
      const errors = validator.errors(pointer ?? "", answer.body);
      expect(errors, describeErrors(errors)).toEqual([]);
    },
  );
});

describe(`GET /library/{id} of a large transcript: its weight in the request allowance (${testEngine})`, () => {
  it("counts one request per started 256 KiB of text or 8,192 segments, and shows it in X-RateLimit-Remaining", async () => {
    expect(weight).toBeGreaterThan(1);
    const listed = await fetch(`${server.baseUrl}/api/v2/library`, {
      headers: { authorization: `Bearer ${server.key.key}` },
    });
    const before = Number(listed.headers.get("x-ratelimit-remaining"));
    const answer = await read("format=text");
    expect(answer.status).toBe(200);
    expect(remainingOf(answer)).toBe(before - weight);
  });

  it("answers 429 rate_limited with Retry-After when the window has no room for the whole weight", async () => {
    const limit = 2 * weight + 2;
    const { key } = await server.platform.accounts.keys.create(server.account.id, limit);
    const first = await read("format=text", key);
    expect(remainingOf(first)).toBe(limit - weight);
    const second = await read("format=text", key);
    expect(remainingOf(second)).toBe(limit - 2 * weight);
    const refused = await read("format=text", key);
    expectErrorEnvelope(refused, 429, "rate_limited");
    expect((refused.body as { error: { number: number } }).error.number).toBe(errorTable.rate_limited.number);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    // The refused read counted as the one request its admission took, and nothing of its weight.
    expect(remainingOf(refused)).toBe(limit - 2 * weight - 1);
  });

  it("counts no more than the limit, so that a key whose limit is below the weight still reads the entry once a minute", async () => {
    const limit = weight - 1;
    const { key } = await server.platform.accounts.keys.create(server.account.id, limit);
    const answer = await read("format=srt", key);
    expect(answer.status, answer.text.slice(0, 500)).toBe(200);
    expect(remainingOf(answer)).toBe(0);
    expectErrorEnvelope(await read("format=srt", key), 429, "rate_limited");
  });
});

describe(`GET /library/{id} of an entry whose words change while it is read: 200 (${testEngine})`, () => {
  it("answers the words of one delivery, read again, never pages of both", async () => {
    const { account, key } = await server.platform.accounts.create({ plan: "pro", name: "changing words" });
    const before = longTranscript("changing", 6000, "before ");
    const after = longTranscript("changing", 6000, "after ");
    await server.platform.library.record(account.id, before);
    let statements = 0;
    // The first statement on the passages measures the entry; the second reads the first page of its words.
    const stop = afterStatements(
      server,
      (sql) => sql.includes("library_passages"),
      async () => {
        statements += 1;
        if (statements === 2) await server.platform.library.record(account.id, after);
      },
    );
    let answer: Answer;
    try {
      answer = await read("format=text", key.key, "file:changing");
    } finally {
      stop();
    }
    expect(statements).toBeGreaterThan(2);
    expect(answer.status, answer.text.slice(0, 500)).toBe(200);
    expect((answer.body as { data: { text: string } }).data.text).toBe(textOf(after.segments));
  });
});
