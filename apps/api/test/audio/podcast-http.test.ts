import { Writable } from "node:stream";
import { audioFixture } from "@verbatim/testkit/fake-podcast-host";
import { type LoopbackServer, listenOnLoopback } from "@verbatim/testkit/listen";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAudioSources } from "../../src/adapters/audio-sources/index.ts";
import { createApp } from "../../src/app.ts";
import { buildServices } from "../../src/assembly/services.ts";
import { createLogger } from "../../src/logger.ts";
import { ledgerOf } from "../platform/helpers.ts";
import { type Answer, expectErrorEnvelope } from "../support/http.ts";
import { type AudioServer, startAudioServer } from "./harness.ts";
import { fetchTranscript, type Loose } from "./requests.ts";

/** The authored feed (packages/testkit/fixtures/podcasts/SOURCE.md): one episode per transcript format, and one without. */
const feedPath = "/feeds/transcript-formats.xml";
const feedOrigin = "https://podcasts.example/";
const show = "Podcasting Q&A (Verbatim test feed)";
const operation = "POST /transcripts/video";

interface Segment {
  start: number;
  duration: number;
  text: string;
  speaker?: number;
}

/** What each example file of the podcast namespace holds, read off the file itself (not through our parser). */
const formats = [
  {
    format: "SRT",
    slug: "srt",
    guid: "verbatim-ep-srt",
    title: "Ten Things We Wish We Knew (SRT)",
    publishedAt: "2020-10-05T04:30:00.000Z",
    duration: null,
    speakers: ["Travis", "Sarah", "Gilon"],
    count: 222,
    // Cue 1 "Travis: When you first get / started in podcasting, it's", 00:00:00,179 --> 00:00:02,399.
    first: { start: 0.179, duration: 2.22, text: "When you first get started in podcasting, it's", speaker: 0 },
    // Cue 222, 00:12:32,671 --> 00:12:34,769, after the last prefix "Travis: Batch production ...".
    last: { start: 752.671, duration: 2.098, text: "best thing to do is to batch your episodes.", speaker: 0 },
  },
  {
    format: "VTT",
    slug: "vtt",
    guid: "verbatim-ep-vtt",
    title: "Do We Need a Podcast Trailer? (VTT)",
    publishedAt: "2020-10-09T04:30:00.000Z",
    duration: null,
    speakers: ["Sarah", "Gillian"],
    count: 7,
    first: { start: 0, duration: 2.76, text: "In today's episode, you'll learn whether or not you", speaker: 0 },
    last: {
      start: 21.45,
      duration: 3.9,
      text: "careers podcast. My question is, do we need a podcast trailer?",
      speaker: 1,
    },
  },
  {
    format: "JSON",
    slug: "json",
    guid: "verbatim-ep-json",
    title: "I Am Your Father (JSON)",
    publishedAt: "2020-10-07T04:30:00.000Z",
    duration: null,
    speakers: ["Darth Vader", "Luke"],
    count: 5,
    first: { start: 0.5, duration: 0.25, text: "I", speaker: 0 },
    last: { start: 2.75, duration: 0.25, text: "Nooooo", speaker: 1 },
  },
  {
    format: "HTML",
    slug: "html",
    guid: "verbatim-ep-html",
    title: "Ten Things We Wish We Knew (HTML)",
    publishedAt: "2020-10-06T04:30:00.000Z",
    // itunes:duration 12:35: the last paragraph (<time>11:31</time>) runs to the episode's end.
    duration: 755,
    speakers: ["Travis", "Sarah", "Gilon"],
    count: 10,
    first: {
      start: 0,
      duration: 53,
      text: expect.stringMatching(
        /^When you first get started in podcasting, it's almost guaranteed .* to help you reach your goals, that much faster$/,
      ),
      speaker: 0,
    },
    last: {
      start: 691,
      duration: 64,
      text: expect.stringMatching(/^.* the next best thing to do is to batch your episodes\.$/),
      speaker: 0,
    },
  },
] as const;

const plainEpisode = { guid: "verbatim-ep-plain", title: "Ask Not (no transcript)", slug: "plain" };
const jfkPhrase = "what you can do for your country";

describe("POST /transcripts/video with podcast feeds, episode pages and their publisher transcripts", () => {
  let server: AudioServer;
  const feedUrl = () => server.host.url(feedPath);
  const mediaUrl = (slug: string) => server.host.url(`/media/ep-${slug}.mp3`);

  beforeAll(async () => {
    // No workers: an 11 s enclosure must be answered inline; a 202 would fail these tests.
    server = await startAudioServer({ workers: 0 });
    const host = server.host;
    host.serveFixture(feedPath, "verbatim/transcript-formats.xml", "application/rss+xml; charset=utf-8", {
      replace: { [feedOrigin]: host.url("/") },
    });
    host.serveFixture("/transcripts/example.srt", "podcast-namespace/example.srt", "application/x-subrip");
    host.serveFixture("/transcripts/example.vtt", "podcast-namespace/example.vtt", "text/vtt");
    host.serveFixture("/transcripts/example.json", "podcast-namespace/example.json", "application/json");
    host.serveFixture("/transcripts/example.html", "podcast-namespace/example.html", "text/html; charset=utf-8");
    for (const slug of ["srt", "vtt", "json", "html", "plain"])
      host.serveFile(`/media/ep-${slug}.mp3`, audioFixture("whisper-cpp/jfk.mp3"), "audio/mpeg");
  });
  afterAll(async () => {
    await server?.close();
  });

  /** The balance now; the test account has a limited plan, so it is a number. */
  const balance = async () => (await server.platform.credits.balance(server.account.id)) as number;

  /** Asserts that exactly one charge of `credits` was booked for the answer's request. */
  async function expectChargedOnce(answer: Answer, credits: number) {
    const requestId = (answer.body as Loose).request_id;
    const rows = (await ledgerOf(server.store, server.account.id)).filter((row) => row.request_id === requestId);
    expect(rows, answer.text.slice(0, 2000)).toEqual([
      expect.objectContaining({ delta: -credits, kind: "charge", operation }),
    ]);
  }

  /** Sends `body`, asserts the error envelope, and that neither the ledger nor the balance moved. */
  async function expectRefusedFreeOfCharge(
    body: Record<string, unknown>,
    status: number,
    code: Parameters<typeof expectErrorEnvelope>[2],
    target: { baseUrl: string } = server,
  ): Promise<Loose> {
    const ledgerBefore = await ledgerOf(server.store, server.account.id);
    const balanceBefore = await balance();
    const answer = await fetchTranscript({ ...server, ...target }, body);
    expectErrorEnvelope(answer, status, code);
    expect(await ledgerOf(server.store, server.account.id)).toEqual(ledgerBefore);
    expect(await balance()).toBe(balanceBefore);
    return answer.body;
  }

  function podcastBlock(episode: { title: string; publishedAt: string; slug: string }, resolvedVia = "rss") {
    return {
      show,
      episode: episode.title,
      published_at: episode.publishedAt,
      feed_url: feedUrl(),
      audio_url: mediaUrl(episode.slug),
      resolved_via: resolvedVia,
    };
  }

  function joined(answer: Answer): string {
    return ((answer.body as Loose).data.segments as Segment[]).map((segment) => segment.text).join(" ");
  }

  describe.each(formats)("200 for a feed episode whose podcast:transcript is $format", (expected) => {
    let answer: Answer;
    let balanceBefore: number;
    let transcriptRequestsBefore: number;

    beforeAll(async () => {
      balanceBefore = await balance();
      transcriptRequestsBefore = server.host.requestsTo(`/transcripts/example.${expected.slug}`).length;
      answer = await fetchTranscript(server, { video: feedUrl(), episode: expected.guid });
    });

    it("answers the publisher's transcript, labelled as such, for the episode the guid names", () => {
      expect(answer.status, answer.text.slice(0, 2000)).toBe(200);
      const body = answer.body as Loose;
      expect(body.ok).toBe(true);
      expect(body.request_id).toBe(answer.headers.get("x-request-id"));
      expect({ ...body.data, segments: undefined }, answer.text.slice(0, 2000)).toEqual({
        kind: "transcript",
        video_id: expect.stringMatching(/^pod_[0-9a-f]{16}$/),
        url: server.host.url(`/episodes/${expected.slug}`),
        platform: "podcast",
        title: expected.title,
        channel: show,
        duration: expected.duration,
        language: "en-US",
        source: "captions",
        caption_kind: "publisher",
        thumbnail_url: server.host.url("/images/show.jpg"),
        speakers: expected.speakers,
        speech_engine: null,
        segments: undefined,
        podcast: podcastBlock(expected),
      });
      expect(body.data.text).toBeUndefined();
      expect(server.host.requestsTo(`/transcripts/example.${expected.slug}`).length).toBe(transcriptRequestsBefore + 1);
      // A publisher transcript needs no audio.
      expect(server.host.requestsTo(`/media/ep-${expected.slug}.mp3`)).toEqual([]);
    });

    it("keeps the file's segments, first and last as written, with speaker indexes into speakers", () => {
      const segments = (answer.body as Loose).data.segments as Segment[];
      expect(segments).toHaveLength(expected.count);
      expect(segments[0]).toEqual(expected.first);
      expect(segments.at(-1)).toEqual(expected.last);
      // Every label is used, and every index names a label.
      const used = [...new Set(segments.map((segment) => segment.speaker))].sort();
      expect(used).toEqual(expected.speakers.map((_, index) => index));
    });

    it("charges 1 credit, in the usage block and the ledger", async () => {
      expect((answer.body as Loose).usage).toEqual({
        credits_spent: 1,
        balance: balanceBefore - 1,
        bytes: Buffer.byteLength(joined(answer)),
      });
      await expectChargedOnce(answer, 1);
    });
  });

  it("reads speakers from SRT name prefixes and decodes VTT entities (a later segment of each file)", async () => {
    const srt = await fetchTranscript(server, { video: feedUrl(), episode: "verbatim-ep-srt" });
    const sarah = ((srt.body as Loose).data.segments as Segment[]).find((segment) =>
      segment.text.startsWith("Creating good audio is"),
    );
    expect(sarah?.speaker, srt.text.slice(0, 500)).toBe(1);
    const vtt = await fetchTranscript(server, { video: feedUrl(), episode: "verbatim-ep-vtt" });
    expect(((vtt.body as Loose).data.segments as Segment[])[2]).toEqual({
      start: 6.09,
      duration: 5.52,
      text: "include in one? Welcome to Podcasting Q&A, where you learn",
      speaker: 0,
    });
  });

  it("returns the joined text when timestamps is false, charging 1 credit", async () => {
    const withSegments = await fetchTranscript(server, { video: feedUrl(), episode: "verbatim-ep-srt" });
    const before = await balance();
    const answer = await fetchTranscript(server, { video: feedUrl(), episode: "verbatim-ep-srt", timestamps: false });
    expect(answer.status, answer.text.slice(0, 2000)).toBe(200);
    const body = answer.body as Loose;
    expect(body.data.segments).toBeUndefined();
    expect(body.data.text).toBe(joined(withSegments));
    expect(body.data.text).toMatch(/^When you first get started in podcasting, it's almost guaranteed/);
    expect(body.data).toMatchObject({
      source: "captions",
      caption_kind: "publisher",
      speakers: ["Travis", "Sarah", "Gilon"],
    });
    expect(body.usage).toEqual({ credits_spent: 1, balance: before - 1, bytes: Buffer.byteLength(body.data.text) });
    await expectChargedOnce(answer, 1);
  });

  describe("200 for the episode a feed request names", () => {
    it("takes the newest episode by publication date when no episode is named (not the first in the feed)", async () => {
      const answer = await fetchTranscript(server, { video: feedUrl() });
      expect(answer.status, answer.text.slice(0, 2000)).toBe(200);
      const data = (answer.body as Loose).data;
      expect(data.podcast).toEqual(podcastBlock(formats[1]));
      expect(data.speakers).toEqual(["Sarah", "Gillian"]);
    });

    it("takes the episode whose enclosure URL is named", async () => {
      const answer = await fetchTranscript(server, { video: feedUrl(), episode: mediaUrl("json") });
      expect(answer.status, answer.text.slice(0, 2000)).toBe(200);
      const data = (answer.body as Loose).data;
      expect(data.podcast).toEqual(podcastBlock(formats[2]));
      expect(data.speakers).toEqual(["Darth Vader", "Luke"]);
    });

    it("gives each episode its own stable video_id", async () => {
      const ids = new Set<string>();
      for (const episode of ["verbatim-ep-srt", "verbatim-ep-json", "verbatim-ep-srt"]) {
        const answer = await fetchTranscript(server, { video: feedUrl(), episode, timestamps: false });
        ids.add((answer.body as Loose).data.video_id);
      }
      expect(ids.size).toBe(2);
    });

    it("422 podcast_feed_not_found (3003, episode_not_in_feed) for a guid the feed does not have, free", async () => {
      const body = await expectRefusedFreeOfCharge(
        { video: feedUrl(), episode: "no-such-guid" },
        422,
        "podcast_feed_not_found",
      );
      expect(body.error.details).toEqual({ reason: "episode_not_in_feed", candidates: [feedUrl()] });
    });
  });

  describe("200 with speech recognition of the enclosure", () => {
    it('mode "audio" skips the publisher transcript and transcribes the enclosure (11 s: 1 credit)', async () => {
      const before = await balance();
      const transcriptsBefore = server.host.requestsTo("/transcripts/example.srt").length;
      const answer = await fetchTranscript(server, { video: feedUrl(), episode: "verbatim-ep-srt", mode: "audio" });
      expect(answer.status, answer.text.slice(0, 2000)).toBe(200);
      const data = (answer.body as Loose).data;
      expect(data, answer.text.slice(0, 2000)).toMatchObject({
        platform: "podcast",
        title: formats[0].title,
        source: "audio",
        caption_kind: null,
        speakers: null,
        speech_engine: {
          engine: server.adapters.engine.info.engine,
          model: server.adapters.engine.info.model,
        },
        podcast: podcastBlock(formats[0]),
      });
      expect(data.speech_engine.engine).toMatch(/\S/);
      expect(data.speech_engine.model).toMatch(/\S/);
      expect(data.duration).toBeCloseTo(11, 0);
      expect(joined(answer)).toContain(jfkPhrase);
      expect(server.host.requestsTo("/transcripts/example.srt").length).toBe(transcriptsBefore);
      expect(server.host.requestsTo("/media/ep-srt.mp3")).toHaveLength(1);
      expect((answer.body as Loose).usage).toEqual({
        credits_spent: 1,
        balance: before - 1,
        bytes: Buffer.byteLength(joined(answer)),
      });
      await expectChargedOnce(answer, 1);
    });

    it('mode "auto" transcribes the audio of an episode without a transcript', async () => {
      const before = await balance();
      const answer = await fetchTranscript(server, {
        video: feedUrl(),
        episode: plainEpisode.guid,
        mode: "auto",
        timestamps: false,
      });
      expect(answer.status, answer.text.slice(0, 2000)).toBe(200);
      const body = answer.body as Loose;
      expect(body.data).toMatchObject({
        title: plainEpisode.title,
        source: "audio",
        caption_kind: null,
        speech_engine: { engine: server.adapters.engine.info.engine },
        podcast: podcastBlock({ ...plainEpisode, publishedAt: "2020-10-08T04:30:00.000Z" }),
      });
      expect(body.data.text).toContain(jfkPhrase);
      expect(body.usage).toEqual({ credits_spent: 1, balance: before - 1, bytes: Buffer.byteLength(body.data.text) });
      await expectChargedOnce(answer, 1);
    });
  });

  describe("422 no_captions", () => {
    it('4103 with retry_with {mode: "audio"} for mode "captions" on an episode without transcript, free', async () => {
      const mediaBefore = server.host.requestsTo("/media/ep-plain.mp3").length;
      const body = await expectRefusedFreeOfCharge(
        { video: feedUrl(), episode: plainEpisode.guid, mode: "captions" },
        422,
        "no_captions",
      );
      expect(body.error.number).toBe(4103);
      expect(body.error.retry_with).toEqual({ mode: "audio" });
      expect(server.host.requestsTo("/media/ep-plain.mp3").length).toBe(mediaBefore);
    });
  });

  describe("podcast episode web pages", () => {
    beforeAll(() => {
      server.host.serve("/episodes/json", {
        contentType: "text/html; charset=utf-8",
        body: `<!doctype html><html><head><title>I am your father | Podcasting Q&amp;A</title>
<link rel="alternate" type="application/rss+xml" title="Podcasting Q&amp;A" href="${feedPath}">
</head><body><h1>I am your father</h1><p>Show notes.</p></body></html>`,
      });
      server.host.serve("/episodes/lonely", {
        contentType: "text/html; charset=utf-8",
        body: `<!doctype html><html><head><title>Episode 12 - a podcast without a feed</title></head>
<body><audio controls src="/media/lonely.mp3"></audio></body></html>`,
      });
      server.host.serve("/blog/recipes", {
        contentType: "text/html; charset=utf-8",
        body: "<!doctype html><html><head><title>Ten pancake recipes</title></head><body><p>Flour, eggs, milk.</p></body></html>",
      });
    });

    it("200: a page linking its feed resolves through the feed to the episode it is (resolved_via page)", async () => {
      const before = await balance();
      const page = server.host.url("/episodes/json");
      const answer = await fetchTranscript(server, { video: page });
      expect(answer.status, answer.text.slice(0, 2000)).toBe(200);
      const body = answer.body as Loose;
      expect(body.data).toMatchObject({
        url: page,
        platform: "podcast",
        title: formats[2].title,
        source: "captions",
        caption_kind: "publisher",
        speakers: ["Darth Vader", "Luke"],
        podcast: podcastBlock(formats[2], "page"),
      });
      expect(body.usage).toMatchObject({ credits_spent: 1, balance: before - 1 });
      await expectChargedOnce(answer, 1);
    });

    it("422 podcast_feed_not_found (3003) with details.reason for a podcast page that links no feed, free", async () => {
      const body = await expectRefusedFreeOfCharge(
        { video: server.host.url("/episodes/lonely") },
        422,
        "podcast_feed_not_found",
      );
      expect(body.error.number).toBe(3003);
      expect(body.error.details).toEqual({ reason: "no_feed_link" });
    });

    it("422 unsupported_platform (3001) for a page of a video site we do not support, fetched nowhere", async () => {
      const requestsBefore = server.host.requests.length;
      const body = await expectRefusedFreeOfCharge(
        { video: "https://vimeo.com/76979871" },
        422,
        "unsupported_platform",
      );
      expect(body.error.number).toBe(3001);
      expect(body.error.message).toContain("vimeo.com");
      expect(server.host.requests.length).toBe(requestsBefore);
    });

    it("422 unsupported_platform (3001) for a web page that is no podcast, free", async () => {
      const body = await expectRefusedFreeOfCharge(
        { video: server.host.url("/blog/recipes") },
        422,
        "unsupported_platform",
      );
      expect(body.error.message).toContain(server.host.url("/blog/recipes"));
    });

    it("422 invalid_input (3005) for an input that is neither an id nor a URL, free", async () => {
      const body = await expectRefusedFreeOfCharge({ video: "my favourite podcast" }, 422, "invalid_input");
      expect(body.error.number).toBe(3005);
    });
  });

  describe("422 invalid_input for a private address when private targets are not allowed", () => {
    let strict: LoopbackServer;
    let closeSources: () => Promise<void>;

    beforeAll(async () => {
      // The same platform and account, but sources under the public-address rule, as in production.
      const sources = createAudioSources({ allowPrivateTargets: false, logger: createLogger("silent") });
      closeSources = () => sources.close();
      const services = buildServices({ ...server.adapters, audioSources: sources }, server.settings);
      strict = await listenOnLoopback(createApp({ ...server.deps, services }));
    });
    afterAll(async () => {
      await strict?.close();
      await closeSources?.();
    });

    it("3005 naming the rule, fetching nothing and charging nothing", async () => {
      const requestsBefore = server.host.requests.length;
      const body = await expectRefusedFreeOfCharge({ video: feedUrl() }, 422, "invalid_input", strict);
      expect(body.error.number).toBe(3005);
      expect(body.error.message).toContain(`points to 127.0.0.1, a loopback address`);
      expect(body.error.message).toContain("only public addresses are fetched");
      expect(server.host.requests.length).toBe(requestsBefore);
    });
  });

  describe("422 invalid_input for an address with a user name and password", () => {
    const password = "s3cret-pw-31";
    const logLines: string[] = [];
    let logged: LoopbackServer;
    let closeSources: () => Promise<void>;

    beforeAll(async () => {
      const logger = pino(
        { level: "debug" },
        new Writable({
          write(line, _encoding, done) {
            logLines.push(String(line));
            done();
          },
        }),
      );
      const sources = createAudioSources({ allowPrivateTargets: true, logger });
      closeSources = () => sources.close();
      const services = buildServices({ ...server.adapters, audioSources: sources }, { ...server.settings, logger });
      logged = await listenOnLoopback(createApp({ ...server.deps, logger, services }));
    });
    afterAll(async () => {
      await logged?.close();
      await closeSources?.();
    });

    const withCredentials = (url: string) => {
      const address = new URL(url);
      address.username = "listener";
      address.password = password;
      return address.href;
    };

    it.each([
      ["a media file", () => withCredentials(mediaUrl("srt"))],
      ["a feed", () => withCredentials(feedUrl())],
      ["a page that redirects to such an address", () => server.host.url("/to-credentials")],
    ])("3005 for %s, the password in neither the answer nor the log, nothing fetched from it", async (_what, video) => {
      server.host.redirect("/to-credentials", withCredentials(mediaUrl("srt")));
      const mediaRequests = server.host.requestsTo("/media/ep-srt.mp3").length;
      const loggedBefore = logLines.length;
      const body = await expectRefusedFreeOfCharge({ video: video() }, 422, "invalid_input", logged);
      expect(body.error.number).toBe(3005);
      expect(body.error.message).toMatch(
        /carries a user name or password; addresses with credentials are not fetched\.$/,
      );
      expect(JSON.stringify(body)).not.toContain(password);
      expect(logLines.length).toBeGreaterThan(loggedBefore);
      expect(logLines.slice(loggedBefore).join("\n")).not.toContain(password);
      expect(server.host.requestsTo("/media/ep-srt.mp3").length).toBe(mediaRequests);
    });
  });

  describe("the same request twice", () => {
    it("serves the second from the store (no second download) and bills it the same", async () => {
      const request = { video: feedUrl(), episode: "verbatim-ep-vtt", mode: "audio" };
      const transcriptsBefore = server.host.requestsTo("/transcripts/example.vtt").length;
      const first = await fetchTranscript(server, request);
      expect(first.status, first.text.slice(0, 2000)).toBe(200);
      expect(server.host.requestsTo("/media/ep-vtt.mp3")).toHaveLength(1);
      const before = await balance();
      const second = await fetchTranscript(server, request);
      expect(second.status, second.text.slice(0, 2000)).toBe(200);
      // One HEAD confirmed that the media still answers; nothing downloaded it again.
      expect(server.host.requestsTo("/media/ep-vtt.mp3").map((media) => media.method)).toEqual(["GET", "HEAD"]);
      expect(server.host.requestsTo("/transcripts/example.vtt").length).toBe(transcriptsBefore);
      expect((second.body as Loose).data).toEqual((first.body as Loose).data);
      expect((second.body as Loose).request_id).not.toBe((first.body as Loose).request_id);
      expect((second.body as Loose).usage).toEqual({ ...(first.body as Loose).usage, balance: before - 1 });
      await expectChargedOnce(first, 1);
      await expectChargedOnce(second, 1);
    });
  });
});
