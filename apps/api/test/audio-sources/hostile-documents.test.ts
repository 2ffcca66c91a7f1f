import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readEpisodePage } from "../../src/adapters/audio-sources/episode-pages.ts";
import { feedFormatOf } from "../../src/adapters/audio-sources/feeds.ts";
import { parsePublisherTranscript } from "../../src/adapters/audio-sources/publisher-transcripts.ts";
import { IsolatedParser } from "../../src/adapters/parsing/isolated-parser.ts";
import { attributesOf, elementsNamed, withoutTags } from "../../src/adapters/parsing/markup.ts";
import { parseCaptionBody } from "../../src/adapters/youtube/caption-formats.ts";
import { toApiError } from "../../src/services/failures/source-failures.ts";
import { type AudioServer, startAudioServer } from "../audio/harness.ts";
import { fetchTranscript, type Loose } from "../audio/requests.ts";
import { expectErrorEnvelope } from "../support/http.ts";

const MiB = 1024 * 1024;

/** A call's failure as the API answers it. */
function answered<T>(call: Promise<T>): Promise<T> {
  return call.catch((error: unknown) => {
    throw toApiError(error);
  });
}
/** The largest transcript and feed bodies read (audio-sources/index.ts defaults). */
const transcriptMaxBytes = 10 * MiB;
const feedMaxBytes = 20 * MiB;

/** `unit` repeated to `bytes` after `prefix`. */
function filled(prefix: string, unit: string, bytes: number, suffix = ""): string {
  return prefix + unit.repeat(Math.floor((bytes - prefix.length - suffix.length) / unit.length)) + suffix;
}

/**
 * Milliseconds of this process's CPU `work` took: unlike the clock, which runs on while other
 * processes have the cores, it measures the work alone. A backtracking scan of these inputs takes
 * minutes; a linear one well under a second.
 */
function elapsedMs(work: () => unknown): number {
  const started = process.cpuUsage();
  work();
  const { user, system } = process.cpuUsage(started);
  return (user + system) / 1000;
}

// Linear scans of these inputs take about 2 s here; the backtracking patterns they replace took
// minutes to hours. The bound leaves room for a busy 2-core machine and still tells them apart.
const linearBoundMs = 15_000;

describe("parsers of fetched text take linear time on hostile input of the largest accepted size", {
  timeout: 60_000,
}, () => {
  it("tells a feed's root after 151 bytes of processing instructions, the input that held the event loop 36 s", () => {
    const hostile = `${"<?a?>".repeat(30)}!`;
    expect(elapsedMs(() => expect(feedFormatOf(hostile)).toBeNull())).toBeLessThan(1_000);
    expect(elapsedMs(() => feedFormatOf(filled("", "<?a?>", feedMaxBytes, "!")))).toBeLessThan(linearBoundMs);
    expect(elapsedMs(() => feedFormatOf(filled("", "<!--", feedMaxBytes)))).toBeLessThan(linearBoundMs);
  });

  it("still finds the root behind a declaration, comments, processing instructions and a doctype", () => {
    const prolog = '\uFEFF<?xml version="1.0"?>\n<!-- generated -->\n<?xml-stylesheet href="s.xsl"?>\n<!DOCTYPE rss>\n';
    expect(feedFormatOf(`${prolog}<rss version="2.0"><channel/></rss>`)).toBe("rss");
    expect(feedFormatOf(`${prolog}<feed xmlns="http://www.w3.org/2005/Atom"/>`)).toBe("atom");
    expect(feedFormatOf("<html><body>no feed</body></html>")).toBeNull();
    expect(feedFormatOf("<?xml version='1.0'?><!-- unterminated")).toBeNull();
  });

  it.each([
    ["a WebVTT cue of '<'", filled("WEBVTT\n\n00:00.000 --> 00:01.000\n", "<", transcriptMaxBytes)],
    ["a WebVTT cue of '<v a'", filled("WEBVTT\n\n00:00.000 --> 00:01.000\n", "<v a", transcriptMaxBytes)],
    ["a WebVTT cue of '<v.'", filled("WEBVTT\n\n00:00.000 --> 00:01.000\n<v", ".a", transcriptMaxBytes)],
    ["an SRT cue of '<'", filled("1\n00:00:00,000 --> 00:00:01,000\n", "<", transcriptMaxBytes)],
    ["an SRT cue of capitalised words", filled("1\n00:00:00,000 --> 00:00:01,000\n", "Aa ", transcriptMaxBytes)],
  ])("parses %s in linear time", (_, text) => {
    const reading = { declaredFormat: null, durationSeconds: 10 };
    expect(elapsedMs(() => parsePublisherTranscript(text, reading))).toBeLessThan(linearBoundMs);
  });

  it.each([
    ["srv3 of '<p '", filled('<timedtext format="3"><body>', "<p ", transcriptMaxBytes)],
    ["srv3 of '<p>' never closed", filled('<timedtext format="3"><body>', "<p>", transcriptMaxBytes)],
    [
      "srv3 whose one tag has a huge attribute name",
      filled('<timedtext format="3"><body><p ', "a", transcriptMaxBytes, ">x</p>"),
    ],
    [
      "srv3 of '<' inside a paragraph",
      filled('<timedtext format="3"><body><p t="0">', "<", transcriptMaxBytes, "</p>"),
    ],
    ["legacy XML of '<text'", filled('<?xml version="1.0"?><transcript>', "<text", transcriptMaxBytes)],
    ["legacy XML of '<text>' never closed", filled('<?xml version="1.0"?><transcript>', "<text>", transcriptMaxBytes)],
  ])("parses YouTube captions: %s, in linear time", (_, body) => {
    expect(elapsedMs(() => parseCaptionBody(body))).toBeLessThan(linearBoundMs);
  });

  it("matches an episode title against a page title of many separators in linear time", () => {
    const title = "A long enough episode title";
    const pageTitle = filled("", " ", 2 * MiB, `-${title}x`);
    const page = readEpisodePage(
      `<html><head><title>${pageTitle}</title></head></html>`,
      new URL("https://a.example/"),
    );
    expect(page.titles).toHaveLength(1);
  });
});

describe("the markup scanners read as the patterns they replace", () => {
  it("removes tags as /<[^>]*>/g does", () => {
    for (const text of ["a<b>c", "<<a>b", "a<b", "<i>x</i> y <", "x>y<z>", "", "<>"]) {
      expect(withoutTags(text)).toBe(text.replace(/<[^>]*>/g, ""));
    }
  });

  it("finds elements, self-closing ones when asked, and skips longer names, each with where it stands", () => {
    const body = '<text start="1" dur="2">one</text><texts>no</texts><text start="3"/><text start="4">two</text>';
    const elements = [...elementsNamed(body, "text", { selfClosing: true })];
    expect(elements.map(({ attributes, content }) => ({ attributes, content }))).toEqual([
      { attributes: ' start="1" dur="2"', content: "one" },
      { attributes: ' start="3"', content: null },
      { attributes: ' start="4"', content: "two" },
    ]);
    expect(elements.map(({ from, to }) => body.slice(from, to))).toEqual([
      '<text start="1" dur="2">one</text>',
      '<text start="3"/>',
      '<text start="4">two</text>',
    ]);
    expect(attributesOf(' t="1500" d="200" ws="1"')).toEqual({ t: "1500", d: "200", ws: "1" });
  });
});

describe("IsolatedParser: slow parses stop at their deadline in a thread of their own", () => {
  // Long enough for the next document's fresh thread to start on a loaded machine; the deep page takes far longer.
  const parser = new IsolatedParser({ deadlineMs: 4_000 });
  afterAll(() => parser.close());

  it("answers invalid_input when a page takes longer than the deadline, and parses the next document", async () => {
    // 65,000 nested links: the selector engine's ordering is superlinear in the tree's depth.
    const deepPage = filled("<html><body>", '<a href="x.mp3">', 1 * MiB);
    await expect(
      answered(parser.parse("The page at https://a.example/", "episodePage", deepPage, "https://a.example/")),
    ).rejects.toMatchObject({
      code: "invalid_input",
      message: "The page at https://a.example/ took longer than 4 s to parse.",
    });
    const feed = await parser.parse(
      "The feed",
      "feed",
      '<rss><channel><title>Show</title><item><title>One</title><guid>g1</guid><enclosure url="https://a.example/1.mp3" type="audio/mpeg" length="1"/></item></channel></rss>',
      "https://a.example/feed",
    );
    expect(feed).toMatchObject({ format: "rss", title: "Show", episodes: [{ guid: "g1" }] });
  });
});

describe("POST /transcripts/video with a hostile document: the service keeps answering everyone else", () => {
  let server: AudioServer;

  beforeAll(async () => {
    server = await startAudioServer({ workers: 0, parseDeadlineMs: 2_000 });
    // An episode page of 65,000 nested links: selecting them takes over a minute on one thread.
    server.host.serve("/hostile.html", {
      body: filled("<html><head><title>Episode</title></head><body>", '<a href="e.mp3">', 1 * MiB),
      contentType: "text/html",
    });
    server.host.serve("/processing-instructions.xml", { body: `${"<?a?>".repeat(30)}!`, contentType: "text/xml" });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("answers 422 invalid_input for the page, while GET /health from another client is answered at once", async () => {
    const started = performance.now();
    const transcript = fetchTranscript(server, { video: server.host.url("/hostile.html") });
    const healthTimes: number[] = [];
    let settled = false;
    void transcript.finally(() => {
      settled = true;
    });
    while (!settled) {
      const asked = performance.now();
      const health = await fetch(`${server.baseUrl}/api/v2/health`);
      expect(health.status).toBe(200);
      healthTimes.push(performance.now() - asked);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const answer = await transcript;
    expectErrorEnvelope(answer, 422, "invalid_input");
    expect((answer.body as Loose).error.message).toContain("to parse");
    expect(performance.now() - started).toBeLessThan(30_000);
    expect(healthTimes.length).toBeGreaterThan(2);
    // Parsed on the event loop, this page held every request for over a minute; the bound leaves a busy machine room.
    expect(Math.max(...healthTimes)).toBeLessThan(linearBoundMs);
  });

  it("answers the 151-byte document at once, as no feed", async () => {
    const started = performance.now();
    const answer = await fetchTranscript(server, { video: server.host.url("/processing-instructions.xml") });
    expect(answer.status).toBe(422);
    // A backtracking scan of it held the event loop 36 s.
    expect(performance.now() - started).toBeLessThan(linearBoundMs);
  });
});
