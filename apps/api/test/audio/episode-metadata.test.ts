import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { audioFixture } from "@verbatim/testkit/fake-podcast-host";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type GeneratedMedia, generatedMedia } from "../asr/generated-media.ts";
import { send } from "../support/http.ts";
import { type AudioServer, startAudioServer } from "./harness.ts";
import { fetchTranscript, type Loose } from "./requests.ts";

// POST /videos/metadata of podcast episodes and media files: an authored feed whose episode has
// HTML show notes, keywords and a `podcast:chapters` file (packages/testkit/fixtures/podcasts/SOURCE.md),
// and an MP3 whose container holds tags and chapters, written with the project's ffmpeg.

let server: AudioServer;
let media: GeneratedMedia;
const feedPath = "/feeds/chapters.xml";

beforeAll(async () => {
  server = await startAudioServer({ credits: 100, workers: 0 });
  media = await generatedMedia();
  const { host } = server;
  const origin = { "https://podcasts.example/": host.url("/") };
  host.serveFixture(feedPath, "verbatim/chapters-feed.xml", "application/rss+xml; charset=utf-8", { replace: origin });
  host.serveFixture("/feeds/chapters-missing.xml", "verbatim/chapters-feed.xml", "application/rss+xml", {
    replace: { "https://podcasts.example/chapters/ask-not.json": host.url("/chapters/gone.json"), ...origin },
  });
  host.serveFixture("/chapters/ask-not.json", "verbatim/ask-not.chapters.json", "application/json+chapters");
  host.serveFixture("/transcripts/jfk-karaoke.vtt", "verbatim/jfk-karaoke.vtt", "text/vtt");
  host.serveFile("/media/ask-not.mp3", audioFixture("whisper-cpp/jfk.mp3"), "audio/mpeg");
  const tags = join(media.dir, "tags.txt");
  await writeFile(
    tags,
    [
      ";FFMETADATA1",
      "title=Ask Not",
      "artist=John F. Kennedy",
      "comment=The close of the inaugural address\\; read aloud",
      "date=1961-01-20",
      "genre=Speech, History",
      "[CHAPTER]",
      "TIMEBASE=1/1000",
      "START=0",
      "END=3300",
      "title=My fellow Americans",
      "[CHAPTER]",
      "TIMEBASE=1/1000",
      "START=3300",
      "END=11000",
      "title=Ask not",
      "",
    ].join("\n"),
  );
  const tagged = await media.make("tagged.mp3", [
    "-i",
    audioFixture("whisper-cpp/jfk.mp3"),
    "-i",
    tags,
    "-map",
    "0:a",
    "-map_metadata",
    "1",
    "-map_chapters",
    "1",
    "-c",
    "copy",
  ]);
  host.serveFile("/media/tagged.mp3", tagged, "audio/mpeg");
}, 120_000);

afterAll(async () => {
  await server?.close();
  await media?.remove();
});

function metadata(video: string) {
  return send(server, { method: "POST", path: "/api/v2/videos/metadata", json: { video } });
}

const balance = async () => server.platform.credits.balance(server.account.id);

describe("200: a podcast episode's metadata, from its feed and chapters file, for 1 credit", () => {
  it("reads the item, its show and its chapters, leaving out what the file keeps off the table of contents", async () => {
    const before = (await balance()) as number;
    const answer = await metadata(server.host.url(feedPath));
    expect(answer.status, answer.text).toBe(200);
    const { data, usage } = answer.body as Loose;
    const { host } = server;
    expect(data).toEqual({
      kind: "video_metadata",
      platform: "podcast",
      video_id: expect.stringMatching(/^pod_[0-9a-f]{16}$/),
      url: host.url("/show/ask-not"),
      title: "Ask Not (chapters)",
      description:
        "The close of the inaugural address of John F. Kennedy.\nRead along:\nthe transcript is timed word by word.",
      channel: { id: null, name: "Fellow Americans (Verbatim test show)", url: host.url("/show") },
      duration: 11,
      published_at: "1961-01-20T17:00:00.000Z",
      language: "en-US",
      tags: ["history", "speeches", "inauguration"],
      chapters: [
        { title: "My fellow Americans", start: 0, end: 3.3 },
        { title: "Ask not", start: 3.3, end: 8.1 },
        { title: "Ask what you can do", start: 8.1, end: 11 },
      ],
      thumbnails: [{ url: host.url("/images/show.jpg"), width: null, height: null }],
      stats: null,
      live_status: "not_live",
      captions: [{ language: "en-US", name: null, kind: "publisher", translatable: false, translation_targets: [] }],
      podcast: {
        show: "Fellow Americans (Verbatim test show)",
        episode: "Ask Not (chapters)",
        published_at: "1961-01-20T17:00:00.000Z",
        feed_url: host.url(feedPath),
        audio_url: host.url("/media/ask-not.mp3"),
        resolved_via: "rss",
      },
    });
    expect(usage).toEqual({ credits_spent: 1, balance: before - 1, bytes: 0 });
    // The feed says all there is: the episode's audio is not fetched.
    expect(host.requestsTo("/media/ask-not.mp3")).toEqual([]);
  });

  it("answers without chapters when the chapters file cannot be read", async () => {
    const answer = await metadata(server.host.url("/feeds/chapters-missing.xml"));
    expect(answer.status, answer.text).toBe(200);
    expect((answer.body as Loose).data).toMatchObject({ title: "Ask Not (chapters)", chapters: [] });
    expect(server.host.requestsTo("/chapters/gone.json")).toHaveLength(1);
  });
});

describe("chapters in podcast transcripts", () => {
  it("carries the episode's chapters, and chunk_by chapter cuts its publisher transcript at them", async () => {
    const answer = await fetchTranscript(server, { video: server.host.url(feedPath), chunk_by: "chapter" });
    expect(answer.status, answer.text).toBe(200);
    const { data } = answer.body as Loose;
    expect(data).toMatchObject({ source: "captions", caption_kind: "publisher" });
    expect(data.chapters.map((chapter: Loose) => chapter.title)).toEqual([
      "My fellow Americans",
      "Ask not",
      "Ask what you can do",
    ]);
    // The karaoke cues start at 0, 4.14, 6.84, 9.09 and 11 s (packages/testkit/fixtures/podcasts/verbatim/jfk-karaoke.vtt).
    expect(data.chunks.map((chunk: Loose) => [chunk.chapter, chunk.start, chunk.end])).toEqual([
      ["My fellow Americans", 0, 4.14],
      ["Ask not", 4.14, 9.09],
      ["Ask what you can do", 9.09, 12.5],
    ]);
    expect(data.chunks.map((chunk: Loose) => chunk.text).join(" ")).toBe(
      data.segments.map((segment: Loose) => segment.text).join(" "),
    );
  });
});

describe("200: a media file's metadata, read from the file", () => {
  it("reads its length, container tags and chapters", async () => {
    const answer = await metadata(server.host.url("/media/tagged.mp3"));
    expect(answer.status, answer.text).toBe(200);
    const { data } = answer.body as Loose;
    expect(data).toMatchObject({
      platform: "file",
      video_id: expect.stringMatching(/^file_[0-9a-f]{16}$/),
      url: server.host.url("/media/tagged.mp3"),
      title: "Ask Not",
      description: "The close of the inaugural address; read aloud",
      channel: { id: null, name: "John F. Kennedy", url: null },
      published_at: "1961-01-20T00:00:00.000Z",
      tags: ["Speech", "History"],
      stats: null,
      live_status: "not_live",
      captions: [],
    });
    expect(data.duration).toBeCloseTo(11, 0);
    expect(data.chapters.map((chapter: Loose) => chapter.title)).toEqual(["My fellow Americans", "Ask not"]);
    // jfk.mp3's audio starts 0.069 s in, which ffmpeg takes off the chapter times it writes.
    expect(Math.abs(data.chapters[1].start - 3.3)).toBeLessThan(0.1);
    expect(data).not.toHaveProperty("podcast");
  });

  it("names a file without tags by its address", async () => {
    const answer = await metadata(server.host.url("/media/ask-not.mp3"));
    expect(answer.status, answer.text).toBe(200);
    expect((answer.body as Loose).data).toMatchObject({ title: "ask-not.mp3", chapters: [], tags: [] });
  });
});

describe("422: an input that is no episode or media file, nothing charged", () => {
  it.each([
    ["a page that is no podcast is unsupported_platform (3001)", "/pages/plain.html", "unsupported_platform", 3001],
    ["an address with nothing published is invalid_input (3005)", "/nothing-here.mp3", "invalid_input", 3005],
    ["a file that is no media is invalid_input (3005)", "/media/not-media.mp3", "invalid_input", 3005],
  ])("%s", async (_name, path, code, number) => {
    server.host.serve("/pages/plain.html", {
      body: "<html><body><p>Hello</p></body></html>",
      contentType: "text/html",
    });
    server.host.serve("/media/not-media.mp3", { body: "this is text, not audio", contentType: "audio/mpeg" });
    const before = await balance();
    const answer = await metadata(server.host.url(path));
    expect(answer.status, answer.text).toBe(422);
    expect((answer.body as Loose).error).toMatchObject({ code, number });
    expect(await balance()).toBe(before);
  });
});
