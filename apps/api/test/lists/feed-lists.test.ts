import { audioFixture } from "@verbatim/testkit/fake-podcast-host";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AudioServer, startAudioServer } from "../audio/harness.ts";
import { fetchTranscript, type Loose } from "../audio/requests.ts";
import { send } from "../support/http.ts";

// Feeds as channels: the authored show of packages/testkit/fixtures/podcasts/verbatim/show-feed.xml
// (two episodes, oldest first in the document) on the fake podcast host, read through the public
// fetch and the isolated parser like any feed the service fetches.
const feedOrigin = "https://podcasts.example/";
const feedPath = "/show/feed.xml";

let server: AudioServer;
const feedUrl = () => server.host.url(feedPath);
const enclosure = (episode: number) => server.host.url(`/media/episode-${episode}.mp3`);

beforeAll(async () => {
  // No workers: an 11 s episode is transcribed within its request.
  server = await startAudioServer({ workers: 0, credits: 10_000 });
  const { host } = server;
  host.serveFixture(feedPath, "verbatim/show-feed.xml", "application/rss+xml; charset=utf-8", {
    replace: { [feedOrigin]: host.url("/") },
  });
  host.serve("/show", {
    contentType: "text/html; charset=utf-8",
    body: `<!doctype html><html><head><title>Fellow Americans</title>
      <link rel="alternate" type="application/rss+xml" title="Fellow Americans" href="${feedPath}"></head>
      <body><h1>Fellow Americans</h1></body></html>`,
  });
  host.serve("/about", {
    contentType: "text/html; charset=utf-8",
    body: "<!doctype html><html><head><title>About us</title></head><body><p>No podcast here.</p></body></html>",
  });
  host.serve("/notes.txt", { contentType: "text/plain", body: "Show notes, no feed." });
  for (const episode of [1, 2])
    host.serveFile(`/media/episode-${episode}.mp3`, audioFixture("whisper-cpp/jfk.mp3"), "audio/mpeg");
}, 120_000);

afterAll(async () => {
  await server?.close();
});

function listChannel(body: Record<string, unknown>) {
  return send(server, { method: "POST", path: "/api/v2/transcripts/channel", json: body });
}

/** Requests the fake host saw for the feed and its pages since `from`. */
function feedReads(from: number): number {
  return server.host.requests.slice(from).filter((request) => !request.path.startsWith("/media/")).length;
}

describe("200: a feed's episodes, newest first", () => {
  let rows: Loose[];

  beforeAll(async () => {
    const answer = await listChannel({ channel: feedUrl(), limit: 5 });
    expect(answer.status, answer.text).toBe(200);
    const body = answer.body as Loose;
    expect(body.data).toMatchObject({ kind: "video_list", source: "channel", platform: "rss", next_cursor: null });
    expect(body.usage.credits_spent).toBe(1);
    rows = body.data.videos;
  });

  it("orders the episodes by date and gives each its audio file, exact date, show, length and picture", () => {
    expect(rows).toEqual([
      {
        videoId: expect.stringMatching(/^file_[0-9a-f]{16}$/),
        url: enclosure(2),
        title: "Episode 2: What you can do",
        duration: 11,
        channel: "Fellow Americans (Verbatim test show)",
        publishedAt: "2026-03-09T06:00:00.000Z",
        stats: null,
        thumbnailUrl: server.host.url("/images/episode-2.jpg"),
      },
      {
        videoId: expect.stringMatching(/^file_[0-9a-f]{16}$/),
        url: enclosure(1),
        title: "Episode 1: Ask not",
        duration: 11,
        channel: "Fellow Americans (Verbatim test show)",
        publishedAt: "2026-03-02T06:00:00.000Z",
        stats: null,
        thumbnailUrl: server.host.url("/images/show.jpg"),
      },
    ]);
  });

  it("gives rows whose url /transcripts/video transcribes as that episode", async () => {
    for (const row of rows) {
      const answer = await fetchTranscript(server, { video: row.url });
      expect(answer.status, answer.text).toBe(200);
      expect((answer.body as Loose).data).toMatchObject({ video_id: row.videoId, url: row.url, source: "audio" });
    }
  });

  it("lists the same episodes for a podcast page that links to the feed", async () => {
    const answer = await listChannel({ channel: server.host.url("/show"), limit: 5 });
    expect(answer.status, answer.text).toBe(200);
    expect((answer.body as Loose).data).toMatchObject({ platform: "rss", videos: rows });
  });

  it("pages one episode at a time with signed cursors, reading the feed once a page", async () => {
    const before = server.host.requests.length;
    const first = await listChannel({ channel: feedUrl(), limit: 1 });
    const second = await listChannel({ channel: feedUrl(), limit: 1, cursor: (first.body as Loose).data.next_cursor });
    for (const answer of [first, second]) expect(answer.status, answer.text).toBe(200);
    expect((first.body as Loose).data.videos).toEqual(rows.slice(0, 1));
    expect((first.body as Loose).data.next_cursor).toMatch(/^v1\./);
    expect((second.body as Loose).data).toMatchObject({ videos: rows.slice(1), next_cursor: null });
    expect(feedReads(before)).toBe(2);
  });

  it("refuses another feed's cursor with invalid_cursor (1002)", async () => {
    const first = await listChannel({ channel: feedUrl(), limit: 1 });
    const answer = await listChannel({
      channel: server.host.url("/show"),
      limit: 1,
      cursor: (first.body as Loose).data.next_cursor,
    });
    expect(answer.status, answer.text).toBe(400);
    expect((answer.body as Loose).error).toMatchObject({ code: "invalid_cursor", number: 1002 });
  });

  it.each([
    ["a row's url", () => rows[1].url],
    ["a row's videoId", () => rows[1].videoId],
  ])("trims the page at since_video_id given as %s", async (_what, marker) => {
    const answer = await listChannel({ channel: feedUrl(), since_video_id: marker() });
    expect(answer.status, answer.text).toBe(200);
    expect((answer.body as Loose).data).toMatchObject({ videos: rows.slice(0, 1), next_cursor: null });
  });
});

describe("422: addresses with no feed to list", () => {
  it("answers a page that links to no feed with podcast_feed_not_found (3003), reason no_feed_link", async () => {
    const answer = await listChannel({ channel: server.host.url("/about") });
    expect(answer.status, answer.text).toBe(422);
    expect((answer.body as Loose).error).toMatchObject({
      code: "podcast_feed_not_found",
      number: 3003,
      details: { reason: "no_feed_link" },
    });
  });

  it("answers a document that is neither feed nor page with podcast_feed_not_found (3003), reason not_a_feed", async () => {
    const answer = await listChannel({ channel: server.host.url("/notes.txt") });
    expect(answer.status, answer.text).toBe(422);
    expect((answer.body as Loose).error).toMatchObject({
      code: "podcast_feed_not_found",
      number: 3003,
      details: { reason: "not_a_feed" },
    });
  });

  it("refuses a media file sent as a channel with endpoint_platform_mismatch (3002), before fetching it", async () => {
    const before = server.host.requests.length;
    const answer = await listChannel({ channel: enclosure(1) });
    expect(answer.status, answer.text).toBe(422);
    expect((answer.body as Loose).error).toMatchObject({
      code: "endpoint_platform_mismatch",
      number: 3002,
      retry_with: { endpoint: "/api/v2/transcripts/video" },
    });
    expect(server.host.requests.length).toBe(before);
  });
});

describe("400 invalid_request: YouTube's options sent for a feed", () => {
  it("refuses tab with 1001 at /body/tab, before fetching the feed and for free", async () => {
    const before = server.host.requests.length;
    const balance = await server.platform.credits.balance(server.account.id);
    const answer = await listChannel({ channel: feedUrl(), tab: "live" });
    expect(answer.status, answer.text).toBe(400);
    expect((answer.body as Loose).error).toMatchObject({
      code: "invalid_request",
      number: 1001,
      issues: [{ path: "/body/tab", message: `not allowed for the feed ${feedUrl()}` }],
    });
    expect(server.host.requests.length).toBe(before);
    expect(await server.platform.credits.balance(server.account.id)).toBe(balance);
  });
});

describe("API v1, whose lists are YouTube's", () => {
  it("refuses a feed on /api/v1/transcripts/channel with v1's unsupported_platform, before fetching it", async () => {
    const before = server.host.requests.length;
    const answer = await send(server, {
      method: "POST",
      path: "/api/v1/transcripts/channel",
      json: { channel: feedUrl() },
    });
    expect(answer.status, answer.text).toBe(422);
    expect(answer.body).toMatchObject({
      ok: false,
      error: { code: "unsupported_platform", message: expect.stringMatching(/^API v1 lists YouTube only/) },
      reason: "endpoint_platform_mismatch",
    });
    expect(server.host.requests.length).toBe(before);
  });
});
