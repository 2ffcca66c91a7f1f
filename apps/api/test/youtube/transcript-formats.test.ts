import { fromFixture } from "@verbatim/testkit/fake-youtube";
import { parseSync } from "subtitle";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testEngine } from "../support/store.ts";
import { serverStartTimeoutMs, startYoutubeServer, type YoutubeTestServer } from "../support/youtube-server.ts";

const surfaceGo = "GJLlxj_dtq8";
const entryId = `youtube:${surfaceGo}`;

/** The fixture's three manual English segments, as `POST /transcripts/video` answers them. */
const segments = [
  { start: 0, duration: 2.31, text: "Microsoft's Surface Go is the smallest" },
  { start: 2.31, duration: 2.95, text: "and cheapest Surface & it's really good." },
  { start: 5.26, duration: 3.12, text: 'The "Type Cover" is sold separately.' },
];
const text = segments.map((segment) => segment.text).join(" ");
const srt =
  "1\n00:00:00,000 --> 00:00:02,310\nMicrosoft's Surface Go is the smallest\n\n" +
  "2\n00:00:02,310 --> 00:00:05,260\nand cheapest Surface & it's really good.\n\n" +
  '3\n00:00:05,260 --> 00:00:08,380\nThe "Type Cover" is sold separately.\n\n';
const vtt =
  "WEBVTT\n\n00:00:00.000 --> 00:00:02.310\nMicrosoft's Surface Go is the smallest\n\n" +
  "00:00:02.310 --> 00:00:05.260\nand cheapest Surface &amp; it's really good.\n\n" +
  '00:00:05.260 --> 00:00:08.380\nThe "Type Cover" is sold separately.\n\n';

type Format = "segments" | "text" | "srt" | "vtt";

let yt: YoutubeTestServer;

beforeAll(async () => {
  yt = await startYoutubeServer({ credits: 100 });
  yt.fake
    .player(surfaceGo, fromFixture("youtube-transcript-api/youtube.innertube.json.static"))
    .timedtext({ v: surfaceGo, lang: "en" }, fromFixture("authored/GJLlxj_dtq8.en.srv3.xml"));
}, serverStartTimeoutMs);

afterAll(async () => {
  await yt?.close();
});

async function fetchTranscript(body: {
  format?: Format;
  chunk_size?: number;
  timestamps?: boolean | "segment" | "none";
}) {
  return yt.server.client.POST("/transcripts/video", { body: { video: surfaceGo, language: "en", ...body } });
}

/** The transcript of a 200 body; fails the test on anything else. */
function transcriptOf(body: Awaited<ReturnType<typeof fetchTranscript>>["data"]) {
  const transcript = body?.data;
  if (transcript?.kind !== "transcript") throw new Error(`expected a transcript, got ${JSON.stringify(body)}`);
  return transcript;
}

/** Where the issues of a 400 point. */
function issuePathsOf(error: { error: object } | undefined): string[] {
  const issues = (error?.error as { issues?: Array<{ path: string }> } | undefined)?.issues ?? [];
  return issues.map((issue) => issue.path);
}

/** The transcript's renderings: everything but the fields every transcript carries. */
function renderingsOf(data: object | undefined): Record<string, unknown> {
  const {
    kind: _kind,
    video_id: _videoId,
    url: _url,
    platform: _platform,
    title: _title,
    channel: _channel,
    duration: _duration,
    language: _language,
    source: _source,
    caption_kind: _captionKind,
    thumbnail_url: _thumbnailUrl,
    published_at: _publishedAt,
    speakers: _speakers,
    speech_engine: _speechEngine,
    fetched_at: _fetchedAt,
    id: _id,
    ...renderings
  } = (data ?? {}) as Record<string, unknown>;
  return renderings;
}

describe(`POST /transcripts/video with format and chunk_size: 200 (${testEngine})`, () => {
  it.each([
    ["segments", { segments }],
    ["text", { text }],
    ["srt", { format: "srt", subtitles: srt }],
    ["vtt", { format: "vtt", subtitles: vtt }],
  ] as const)("format %s answers only that rendering, for 1 credit", async (format, expected) => {
    const before = await yt.balance();
    const { data, error, response } = await fetchTranscript({ format });
    expect(response.status, JSON.stringify(error)).toBe(200);
    expect(data?.data).toMatchObject({ kind: "transcript", video_id: surfaceGo, language: "en" });
    expect(renderingsOf(data?.data)).toEqual(expected);
    expect(data?.usage).toEqual({ credits_spent: 1, balance: (before ?? 0) - 1, bytes: Buffer.byteLength(text) });
  });

  it("writes SubRip and WebVTT that the subtitle package reads back as the segments", async () => {
    for (const format of ["srt", "vtt"] as const) {
      const { data } = await fetchTranscript({ format });
      const cues = parseSync(transcriptOf(data).subtitles ?? "").flatMap((node) =>
        node.type === "cue" ? [node.data] : [],
      );
      expect(cues.map((cue) => ({ ...cue, text: cue.text.replaceAll("&amp;", "&") }))).toEqual(
        segments.map((segment) => ({
          start: Math.round(segment.start * 1000),
          end: Math.round((segment.start + segment.duration) * 1000),
          text: segment.text,
        })),
      );
    }
  });

  it("adds chunks to any format: whole segments joined while they fit, together the text", async () => {
    const chunks = [
      { text: `${segments[0]?.text} ${segments[1]?.text}`, start: 0, end: 5.26 },
      { text: segments[2]?.text, start: 5.26, end: 8.38 },
    ];
    for (const format of ["segments", "text", "vtt"] as const) {
      const { data, response } = await fetchTranscript({ format, chunk_size: 100 });
      expect(response.status).toBe(200);
      expect(transcriptOf(data).chunks).toEqual(chunks);
    }
    const { data } = await fetchTranscript({ chunk_size: 10_000 });
    expect(transcriptOf(data).chunks).toEqual([{ text, start: 0, end: 8.38 }]);
    expect(transcriptOf(data).segments).toEqual(segments);
  });

  it("accepts a timestamps that agrees with the format", async () => {
    for (const [timestamps, format] of [
      [true, "srt"],
      ["segment", "segments"],
      [false, "text"],
      ["none", "text"],
    ] as const) {
      const { data, error, response } = await fetchTranscript({ timestamps, format });
      expect(response.status, JSON.stringify(error)).toBe(200);
      expect(Object.keys(renderingsOf(data?.data)).sort()).toEqual(
        format === "srt" ? ["format", "subtitles"] : [format],
      );
    }
  });
});

describe(`POST /transcripts/video with format and chunk_size: 400 (${testEngine})`, () => {
  it.each([
    [false, "segments"],
    [false, "srt"],
    ["none", "vtt"],
    [true, "text"],
    ["segment", "text"],
  ] as const)(
    "refuses timestamps %s with format %s, before any upstream call or charge",
    async (timestamps, format) => {
      const before = await yt.balance();
      const upstreamCalls = yt.fake.requests.length;
      const { error, response } = await fetchTranscript({ timestamps, format });
      expect(response.status, JSON.stringify(error)).toBe(400);
      expect(error).toMatchObject({ ok: false, error: { code: "invalid_request" } });
      expect(issuePathsOf(error)).toEqual(["/body/format"]);
      expect(yt.fake.requests.length).toBe(upstreamCalls);
      expect(await yt.balance()).toBe(before);
    },
  );

  it.each([99, 10_001, 250.5])("refuses chunk_size %s", async (chunkSize) => {
    const { error, response } = await fetchTranscript({ chunk_size: chunkSize });
    expect(response.status, JSON.stringify(error)).toBe(400);
    expect(issuePathsOf(error)).toContain("/body/chunk_size");
  });

  it("refuses an unknown format", async () => {
    const { error, response } = await fetchTranscript({ format: "docx" as Format });
    expect(response.status, JSON.stringify(error)).toBe(400);
    expect(issuePathsOf(error)).toContain("/body/format");
  });
});

describe(`GET /library/{id}: 200 (${testEngine})`, () => {
  async function readLibrary(query: { format?: Format; chunk_size?: number } = {}, id = entryId) {
    return yt.server.client.GET("/library/{id}", { params: { path: { id }, query } });
  }

  it("carries the entry's id in the library's list and search", async () => {
    await fetchTranscript({});
    const listed = await yt.server.client.GET("/library", {});
    expect(listed.data?.data.entries.map((entry) => entry.id)).toEqual([entryId]);
    const found = await yt.server.client.POST("/library/search", { body: { query: "surface" } });
    expect(found.data?.data.hits.map((hit) => hit.id)).toEqual([entryId]);
  });

  it.each([
    ["segments", { segments }],
    ["text", { text }],
    ["srt", { format: "srt", subtitles: srt }],
    ["vtt", { format: "vtt", subtitles: vtt }],
  ] as const)("reads a fetched transcript back as %s, free", async (format, expected) => {
    await fetchTranscript({});
    const before = await yt.balance();
    const upstreamCalls = yt.fake.requests.length;
    const { data, error, response } = await readLibrary({ format });
    expect(response.status, JSON.stringify(error)).toBe(200);
    expect(data?.data).toMatchObject({
      kind: "library_transcript",
      id: entryId,
      video_id: surfaceGo,
      platform: "youtube",
      title: "Surface Go Review - It’s Awesome",
      channel: "Dave2D",
      language: "en",
      source: "captions",
      duration: 316,
      fetched_at: expect.any(String),
    });
    // The library keeps starts and words: the last segment lasts until the video's end (316 s).
    const lastingToTheEnd = { ...expected } as Record<string, unknown>;
    if (format === "segments") {
      lastingToTheEnd.segments = segments.map((segment, index) =>
        index === segments.length - 1 ? { ...segment, duration: 316 - segment.start } : segment,
      );
    }
    if (format === "srt" || format === "vtt") {
      lastingToTheEnd.subtitles = String(expected.subtitles).replace(
        format === "srt" ? "00:00:08,380" : "00:00:08.380",
        format === "srt" ? "00:05:16,000" : "00:05:16.000",
      );
    }
    expect(renderingsOf(data?.data)).toEqual(lastingToTheEnd);
    expect(data?.usage).toEqual({ credits_spent: 0, balance: before, bytes: Buffer.byteLength(text) });
    expect(await yt.balance()).toBe(before);
    expect(yt.fake.requests.length).toBe(upstreamCalls);
  });

  it("reads segments by default, with chunks when asked", async () => {
    const { data, response } = await readLibrary({ chunk_size: 100 });
    expect(response.status).toBe(200);
    expect(data?.data.segments?.map((segment) => segment.text)).toEqual(segments.map((segment) => segment.text));
    expect(data?.data.chunks).toEqual([
      { text: `${segments[0]?.text} ${segments[1]?.text}`, start: 0, end: 5.26 },
      { text: segments[2]?.text, start: 5.26, end: 316 },
    ]);
  });

  it("counts against the request allowance", async () => {
    const first = await readLibrary();
    const second = await readLibrary();
    expect(Number(second.response.headers.get("x-ratelimit-remaining"))).toBe(
      Number(first.response.headers.get("x-ratelimit-remaining")) - 1,
    );
  });
});

describe(`GET /library/{id}: 404 and 400 (${testEngine})`, () => {
  async function readAs(client: YoutubeTestServer["server"]["client"], id: string) {
    return client.GET("/library/{id}", { params: { path: { id } } });
  }

  it("answers 404 not_found for an id the library does not have", async () => {
    for (const id of ["youtube:aBcDeFgHiJk", surfaceGo, "tiktok:GJLlxj_dtq8"]) {
      const { error, response } = await readAs(yt.server.client, id);
      expect(response.status, JSON.stringify(error)).toBe(404);
      expect(error).toMatchObject({ ok: false, error: { code: "not_found" } });
    }
  });

  it("answers 404 for another account's entry, as for one that does not exist", async () => {
    await fetchTranscript({});
    const { key } = await yt.server.platform.accounts.create({ plan: "pro", credits: 10, name: "stranger" });
    const { error, response } = await readAs(yt.server.clientFor(key.key), entryId);
    expect(response.status, JSON.stringify(error)).toBe(404);
    expect(error).toMatchObject({ ok: false, error: { code: "not_found" } });
  });

  it("refuses an unknown format or a chunk_size out of range", async () => {
    const unknown = await yt.server.client.GET("/library/{id}", {
      params: { path: { id: entryId }, query: { format: "docx" as Format } },
    });
    expect(unknown.response.status).toBe(400);
    const tooSmall = await yt.server.client.GET("/library/{id}", {
      params: { path: { id: entryId }, query: { chunk_size: 50 } },
    });
    expect(tooSmall.response.status).toBe(400);
    expect(issuePathsOf(tooSmall.error)).toContain("/query/chunk_size");
  });
});
