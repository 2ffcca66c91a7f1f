import { audioFixture } from "@verbatim/testkit/fake-podcast-host";
import { FakeYoutube, recordedVideos } from "@verbatim/testkit/fake-youtube";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SpeechEngine, SpeechTranscript } from "../src/adapters/asr/index.ts";
import { type AudioServer, sharedEngine, startAudioServer } from "./audio/harness.ts";
import { fetchTranscript, type Loose } from "./audio/requests.ts";

// Text from upstreams is hostile: captions, publisher transcripts and even a speech engine's words
// may hold control characters (a terminal's escape sequences among them) and line separators that
// break a subtitle file's lines. The service keeps segments free of both, whatever their source,
// and writes subtitles whose text opens no tag.

/** The lines Python's `str.splitlines()` finds, as the reader of the issue split the SubRip. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the line separators of str.splitlines().
const splitLines = (document: string) => document.split(/\r\n|[\n\v\f\r\x1c-\x1e\x85\u2028\u2029]/);

/** A control character other than the tab, or a line separator: what no kept segment holds. */
const unkeptCharacter = /[^\P{Cc}\t]|[\u2028\u2029]/u;

/** The cue texts of a SubRip document, asserting that each cue is its four lines and no more. */
function srtCueTexts(document: string): string[] {
  const lines = splitLines(document);
  expect(lines.length % 4, JSON.stringify(document)).toBe(1);
  const texts: string[] = [];
  for (let at = 0; at + 4 <= lines.length; at += 4) {
    expect(lines[at], JSON.stringify(document)).toBe(String(at / 4 + 1));
    expect(lines[at + 1], JSON.stringify(document)).toMatch(/^\d{2}:\d{2}:\d{2},\d{3} --> \d{2}:\d{2}:\d{2},\d{3}$/);
    expect(lines[at + 3], JSON.stringify(document)).toBe("");
    texts.push(lines[at + 2] ?? "");
  }
  return texts;
}

function expectKept(segments: Array<{ text: string }>): void {
  for (const segment of segments) expect(segment.text, JSON.stringify(segment.text)).not.toMatch(unkeptCharacter);
}

/** The escape sequences of the issue: a clipboard write, a window title, a cleared screen and a disguised link. */
const escapes =
  "\u001b]52;c;aGk=\u0007\u001b]0;owned\u0007\u001b[2J\u001b]8;;https://evil.example/\u001b\\link\u001b]8;;\u001b\\";

/** A speech engine whose words are the hostile text, as a compromised or confused recogniser could give them. */
const hostileEngine: SpeechEngine = {
  info: sharedEngine.info,
  check: () => Promise.resolve(),
  async transcribe(samples): Promise<SpeechTranscript> {
    for await (const _ of samples);
    return {
      info: sharedEngine.info,
      duration: 11,
      segments: [
        { start: 0, duration: 5, text: `ask not\u0085what your${escapes} country` },
        { start: 5, duration: 6, text: "can do\r\n\r\n2\n00:00:00,000 --> 00:00:09,000\nfor you\u0000" },
      ],
    };
  },
};

describe("text read from upstreams is kept without control characters or line breaks", { timeout: 60_000 }, () => {
  let server: AudioServer;
  let youtube: FakeYoutube;

  beforeAll(async () => {
    youtube = await FakeYoutube.start();
    youtube.serveRecordedVideos();
    server = await startAudioServer({ workers: 0, youtube, engine: hostileEngine, credits: 100 });
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await youtube?.close();
  });

  it("answers YouTube captions of six cues as SubRip of six cues, which a splitlines reader reads as six", async () => {
    const paragraphs = [
      "&lt;script&gt;alert(1)&lt;/script&gt;",
      "next\u0085line",
      "file\u001cseparator",
      `escapes ${escapes} here`,
      "c1&#x9b;2J&#x9d;0;title&#x9c; controls",
      "vertical&#11;tab",
    ];
    const body = `<timedtext format="3"><body>${paragraphs.map((text, index) => `<p t="${index * 1000}" d="900">${text}</p>`).join("")}</body></timedtext>`;
    youtube.timedtext({ v: recordedVideos.captioned, lang: "en" }, { body });
    const answer = await fetchTranscript(server, { video: recordedVideos.captioned, language: "en", format: "srt" });
    expect(answer.status, answer.text).toBe(200);
    const subtitles = (answer.body as Loose).data.subtitles as string;
    expect(srtCueTexts(subtitles)).toEqual([
      "&lt;script&gt;alert(1)&lt;/script&gt;",
      "next line",
      "file separator",
      "escapes ]52;c;aGk=]0;owned[2J]8;;https://evil.example/\\link]8;;\\ here",
      "c12J0;title controls",
      "vertical tab",
    ]);
    const stored = await fetchTranscript(server, { video: recordedVideos.captioned, language: "en" });
    expect(stored.status, stored.text).toBe(200);
    const segments = (stored.body as Loose).data.segments;
    expectKept(segments);
    expect(segments[0].text).toBe("<script>alert(1)</script>");
  });

  it("answers 200 for YouTube captions holding NUL, which the store cannot keep", async () => {
    youtube.timedtext(
      { v: recordedVideos.json3Captioned, lang: "en" },
      { body: JSON.stringify({ events: [{ tStartMs: 0, dDurationMs: 900, segs: [{ utf8: "nul\u0000 here" }] }] }) },
    );
    const answer = await fetchTranscript(server, { video: recordedVideos.json3Captioned, language: "en" });
    expect(answer.status, answer.text).toBe(200);
    expect((answer.body as Loose).data.segments).toEqual([{ start: 0, duration: 0.9, text: "nul here" }]);
  });

  it("keeps a feed's WebVTT transcript without them, its decoded markup written as text in SubRip", async () => {
    const host = server.host;
    host.serve("/hostile.vtt", {
      body: `WEBVTT\n\n00:00.000 --> 00:01.000\n<v Host\u0085Name>&lt;script&gt;alert(1)&lt;/script&gt;\n\n00:01.000 --> 00:02.000\nnext\u0085line${escapes}\n`,
      contentType: "text/vtt",
    });
    host.serveFile("/hostile.mp3", audioFixture("whisper-cpp/jfk.mp3"), "audio/mpeg");
    const feed = [
      '<?xml version="1.0" encoding="UTF-8"?>',
      '<rss version="2.0" xmlns:podcast="https://podcastindex.org/namespace/1.0">',
      `<channel><title>Hostile text</title><link>${host.url("/")}</link>`,
      "<item><title>Hostile</title><guid>hostile</guid>",
      `<enclosure url="${host.url("/hostile.mp3")}" type="audio/mpeg" length="1000"/>`,
      `<podcast:transcript url="${host.url("/hostile.vtt")}" type="text/vtt"/>`,
      "</item></channel></rss>",
    ].join("\n");
    host.serve("/hostile.xml", { body: feed, contentType: "application/rss+xml" });
    const answer = await fetchTranscript(server, { video: host.url("/hostile.xml") });
    expect(answer.status, answer.text).toBe(200);
    const data = (answer.body as Loose).data;
    expectKept(data.segments);
    expect(data.speakers).toEqual(["Host Name"]);
    expect(data.segments.map((segment: Loose) => segment.text)).toEqual([
      "<script>alert(1)</script>",
      "next line]52;c;aGk=]0;owned[2J]8;;https://evil.example/\\link]8;;\\",
    ]);
    const srt = await fetchTranscript(server, { video: host.url("/hostile.xml"), format: "srt" });
    expect(srt.status, srt.text).toBe(200);
    expect(srtCueTexts((srt.body as Loose).data.subtitles)).toEqual([
      "&lt;script&gt;alert(1)&lt;/script&gt;",
      "next line]52;c;aGk=]0;owned[2J]8;;https://evil.example/\\link]8;;\\",
    ]);
  });

  it("keeps a speech engine's words without them", async () => {
    server.host.serveFile("/spoken.mp3", audioFixture("whisper-cpp/jfk.mp3"), "audio/mpeg");
    const answer = await fetchTranscript(server, { video: server.host.url("/spoken.mp3") });
    expect(answer.status, answer.text).toBe(200);
    const data = (answer.body as Loose).data;
    expect(data.source).toBe("audio");
    expectKept(data.segments);
    expect(data.segments.map((segment: Loose) => segment.text)).toEqual([
      "ask not what your]52;c;aGk=]0;owned[2J]8;;https://evil.example/\\link]8;;\\ country",
      "can do    2 00:00:00,000 --> 00:00:09,000 for you",
    ]);
  });
});
