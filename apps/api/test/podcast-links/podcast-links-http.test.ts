import { type PlatformDouble, startPlatformDouble } from "@verbatim/testkit/platform-double";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AudioServer, startAudioServer } from "../audio/harness.ts";
import { fetchTranscript, type Loose } from "../audio/requests.ts";
import { ledgerOf } from "../platform/helpers.ts";
import { type Answer, expectErrorEnvelope, send } from "../support/http.ts";
import { podcastDoubleFolders } from "./podcast-double.ts";

// Apple Podcasts and Spotify links over HTTP, against the platform double's Apple directory,
// Spotify pages and the feed they lead to (packages/testkit/fixtures/platforms/{apple-podcasts,
// spotify,podcast-feeds}/SOURCE.md say which link stands for which case). Everything goes through
// the double as VERBATIM_PROXY_URLS, under the public-address rule.

const feedUrl = "https://podcasts.example/feeds/transcript-formats.xml";
const show = "Podcasting Q&A (Verbatim test feed)";
const appleShow = "https://podcasts.apple.com/us/podcast/id1550000001";
const appleEpisode = (trackId: string) => `${appleShow}?i=${trackId}`;
const spotifyAskNot = "https://open.spotify.com/episode/0VerbatimAskNot0000000";
const channelEndpoint = { endpoint: "/api/v2/transcripts/channel" };
const jfkPhrase = "what you can do for your country";

let double: PlatformDouble;
let server: AudioServer;

beforeAll(async () => {
  double = await startPlatformDouble({ platforms: podcastDoubleFolders });
  // No workers: the 11 s clip is answered inline, so a 202 would fail these tests.
  server = await startAudioServer({ workers: 0, podcastDouble: double });
});

afterAll(async () => {
  await server?.close();
  await double?.close();
});

const balance = async () => (await server.platform.credits.balance(server.account.id)) as number;

/** The requests the double answered since `from`, as `METHOD url` (its CONNECTs left out). */
const askedSince = (from: number) =>
  double.requests
    .slice(from)
    .filter((request) => request.method !== "CONNECT")
    .map((request) => `${request.method} ${request.url}`);

/** Sends `body`, asserts the error envelope, and that nothing was charged. */
async function expectRefused(
  body: Record<string, unknown>,
  status: number,
  code: Parameters<typeof expectErrorEnvelope>[2],
) {
  const ledgerBefore = await ledgerOf(server.store, server.account.id);
  const answer = await fetchTranscript(server, body);
  expectErrorEnvelope(answer, status, code);
  expect(await ledgerOf(server.store, server.account.id)).toEqual(ledgerBefore);
  return (answer.body as Loose).error;
}

function podcastBlock(episode: string, publishedAt: string, media: string, resolvedVia: string) {
  return {
    show,
    episode,
    published_at: publishedAt,
    feed_url: feedUrl,
    audio_url: `https://podcasts.example/media/${media}`,
    resolved_via: resolvedVia,
  };
}

describe("POST /transcripts/video with an Apple Podcasts episode link: 200 with resolved_via apple", () => {
  it.each([
    {
      how: "its track id, whose GUID the feed lists",
      trackId: "1000650000001",
      title: "Ten Things We Wish We Knew (SRT)",
      publishedAt: "2020-10-05T04:30:00.000Z",
      slug: "srt",
      segments: 222,
    },
    {
      how: "its title and date, which Apple lists without a GUID and behind a tracking prefix",
      trackId: "1000650000004",
      title: "Ten Things We Wish We Knew (HTML)",
      publishedAt: "2020-10-06T04:30:00.000Z",
      slug: "html",
      segments: 10,
    },
  ])("finds the episode by $how, and answers the feed's transcript for 1 credit", async (expected) => {
    const before = await balance();
    const from = double.requests.length;
    const answer = await fetchTranscript(server, { video: appleEpisode(expected.trackId) });
    expect(answer.status, answer.text.slice(0, 2000)).toBe(200);
    const body = answer.body as Loose;
    expect({ ...body.data, segments: undefined }).toMatchObject({
      video_id: expect.stringMatching(/^pod_[0-9a-f]{16}$/),
      url: appleEpisode(expected.trackId),
      platform: "podcast",
      title: expected.title,
      channel: show,
      source: "captions",
      caption_kind: "publisher",
      podcast: podcastBlock(expected.title, expected.publishedAt, `ep-${expected.slug}.mp3`, "apple"),
    });
    expect(body.data.segments).toHaveLength(expected.segments);
    expect(body.usage).toMatchObject({ credits_spent: 1, balance: before - 1 });
    const asked = askedSince(from);
    expect(asked).toContain(
      `GET https://itunes.apple.com/lookup?id=1550000001&entity=podcastEpisode&limit=200&country=us`,
    );
    expect(asked).toContain(`GET ${feedUrl}`);
    expect(asked).toContain(`GET https://podcasts.example/transcripts/example.${expected.slug}`);
    // A publisher's transcript needs no audio.
    expect(asked.filter((request) => request.includes("/media/"))).toEqual([]);
  });

  it("is the same episode as the feed's own: one video_id, whichever way it was named", async () => {
    const viaApple = await fetchTranscript(server, { video: appleEpisode("1000650000001") });
    const viaFeed = await fetchTranscript(server, { video: feedUrl, episode: "verbatim-ep-srt" });
    expect(viaFeed.status, viaFeed.text.slice(0, 500)).toBe(200);
    expect((viaFeed.body as Loose).data.podcast.resolved_via).toBe("rss");
    expect((viaApple.body as Loose).data.video_id).toBe((viaFeed.body as Loose).data.video_id);
  });

  it("reads the link without its scheme, with the show's slug and another store's country", async () => {
    const answer = await fetchTranscript(server, {
      video: "podcasts.apple.com/gb/podcast/podcasting-q-a-verbatim-test-feed/id1550000001?i=1000650000002&uo=4",
    });
    expect(answer.status, answer.text.slice(0, 2000)).toBe(200);
    expect((answer.body as Loose).data).toMatchObject({
      url: "https://podcasts.apple.com/gb/podcast/id1550000001?i=1000650000002",
      title: "Do We Need a Podcast Trailer? (VTT)",
      podcast: { resolved_via: "apple" },
    });
  });

  it("answers v1 clients with resolved_via rss, the closest of v1's two values", async () => {
    const answer = await send(server, {
      method: "POST",
      path: "/api/v1/transcripts/video",
      json: { video: appleEpisode("1000650000003") },
    });
    expect(answer.status, answer.text.slice(0, 2000)).toBe(200);
    expect((answer.body as Loose).data.podcast).toEqual(
      podcastBlock("I Am Your Father (JSON)", "2020-10-07T04:30:00.000Z", "ep-json.mp3", "rss"),
    );
  });

  it("lists the feed's transcript languages for POST /transcripts/languages, free", async () => {
    const answer = await send(server, {
      method: "POST",
      path: "/api/v2/transcripts/languages",
      json: { video: appleEpisode("1000650000001") },
    });
    expect(answer.status, answer.text.slice(0, 2000)).toBe(200);
    expect((answer.body as Loose).data).toMatchObject({
      platform: "podcast",
      languages: [{ language: "en-US", kind: "publisher" }],
    });
  });
});

describe("POST /transcripts/video with a Spotify episode link: 200 with resolved_via spotify", () => {
  let answer: Answer;
  let asked: string[];
  let before: number;

  beforeAll(async () => {
    before = await balance();
    const from = double.requests.length;
    answer = await fetchTranscript(server, { video: spotifyAskNot });
    asked = askedSince(from);
  });

  it("finds the show's feed in Apple's directory by the show's name, and the episode by title and date", () => {
    expect(answer.status, answer.text.slice(0, 2000)).toBe(200);
    expect((answer.body as Loose).data).toMatchObject({
      url: spotifyAskNot,
      platform: "podcast",
      title: "Ask Not (no transcript)",
      channel: show,
      podcast: podcastBlock("Ask Not (no transcript)", "2020-10-08T04:30:00.000Z", "ep-plain.mp3", "spotify"),
    });
    expect(asked).toEqual(
      expect.arrayContaining([
        `GET https://open.spotify.com/oembed?url=${encodeURIComponent(spotifyAskNot)}`,
        `GET ${spotifyAskNot}`,
        `GET https://itunes.apple.com/search?term=Podcasting+Q%26A+%28Verbatim+test+feed%29&media=podcast&entity=podcast&limit=10`,
        `GET ${feedUrl}`,
      ]),
    );
    // "Podcasting Q&A Daily", listed first, only contains the name: its feed is never read.
    expect(asked.filter((request) => request.includes("podcasting-qa-daily"))).toEqual([]);
  });

  it("transcribes the episode's audio, which has no transcript, and charges its one started minute", () => {
    const body = answer.body as Loose;
    expect(body.data).toMatchObject({ source: "audio", caption_kind: null, speech_engine: expect.any(Object) });
    expect(body.data.segments.map((segment: { text: string }) => segment.text).join(" ")).toContain(jfkPhrase);
    expect(asked).toContain("GET https://podcasts.example/media/ep-plain.mp3");
    expect(body.usage).toMatchObject({ credits_spent: 1, balance: before - 1 });
  });

  it.each([
    "https://open.spotify.com/intl-de/episode/0VerbatimAskNot0000000?si=4f0333bb1555420b",
    "open.spotify.com/embed/episode/0VerbatimAskNot0000000",
  ])("reads %s as the same episode, served from the store", async (link) => {
    const from = double.requests.length;
    const again = await fetchTranscript(server, { video: link });
    expect(again.status, again.text.slice(0, 2000)).toBe(200);
    expect((again.body as Loose).data).toMatchObject({
      video_id: (answer.body as Loose).data.video_id,
      url: spotifyAskNot,
      podcast: { resolved_via: "spotify" },
    });
    expect((again.body as Loose).data.segments.length).toBe((answer.body as Loose).data.segments.length);
    // The stored words are served once the media still answers (a HEAD), not transcribed again.
    expect(askedSince(from).filter((request) => request.includes("/media/"))).toEqual([
      "HEAD https://podcasts.example/media/ep-plain.mp3",
    ]);
  });

  it("is the episode an Apple Podcasts link names too", async () => {
    const viaApple = await fetchTranscript(server, { video: appleEpisode("1000650000005") });
    expect(viaApple.status, viaApple.text.slice(0, 2000)).toBe(200);
    expect((viaApple.body as Loose).data).toMatchObject({
      video_id: (answer.body as Loose).data.video_id,
      podcast: { resolved_via: "apple" },
    });
  });
});

describe("422 invalid_input (3005) for a show link where an episode is needed, with retry_with the channel endpoint", () => {
  it.each([
    ["an Apple Podcasts show", "https://podcasts.apple.com/us/podcast/podcasting-q-a/id1550000001"],
    ["a Spotify show", "https://open.spotify.com/show/0VerbatimShowQandA0000?si=abc"],
  ])("refuses %s before asking anyone, free", async (_, link) => {
    const from = double.requests.length;
    const error = await expectRefused({ video: link }, 422, "invalid_input");
    expect(error.retry_with).toEqual(channelEndpoint);
    expect(error.message).toMatch(/not an episode.*POST \/transcripts\/channel/);
    expect(double.requests.slice(from)).toEqual([]);
  });
});

describe("422 podcast_feed_not_found (3003)", () => {
  it("for a Spotify exclusive: reason no_public_feed, and the feeds of the nearest names as candidates", async () => {
    const error = await expectRefused(
      { video: "https://open.spotify.com/episode/0VerbatimExclusive0000" },
      422,
      "podcast_feed_not_found",
    );
    expect(error.details).toEqual({
      reason: "no_public_feed",
      candidates: ["https://feeds.example.org/originals-review.xml", "https://feeds.example.org/original-sounds.xml"],
    });
    expect(error.message).toContain('"Verbatim Spotify Original"');
  });

  it("for a show Apple alone serves: reason no_public_feed, with the feeds of the shows nearest by name", async () => {
    const error = await expectRefused(
      { video: "https://podcasts.apple.com/us/podcast/verbatim-apple-exclusive/id1550000002?i=1000650000021" },
      422,
      "podcast_feed_not_found",
    );
    expect(error.details).toEqual({
      reason: "no_public_feed",
      candidates: ["https://feeds.example.org/exclusives-weekly.xml", "https://feeds.example.org/apple-talk.rss"],
    });
  });

  it("for an episode Apple lists that the feed does not: reason episode_not_in_feed, the feed as candidate", async () => {
    const error = await expectRefused({ video: appleEpisode("1000650000009") }, 422, "podcast_feed_not_found");
    expect(error.details).toEqual({ reason: "episode_not_in_feed", candidates: [feedUrl] });
    expect(error.message).toContain('"A Bonus Only Apple Lists" of 2020-10-10');
  });

  it("for a track id not among the show's episodes in the directory: reason episode_not_in_feed", async () => {
    const error = await expectRefused({ video: appleEpisode("1000650009999") }, 422, "podcast_feed_not_found");
    expect(error.details).toEqual({ reason: "episode_not_in_feed", candidates: [feedUrl] });
  });
});

describe("422 unavailable (4002) for an episode that does not exist", () => {
  it.each([
    ["a Spotify episode Spotify does not know", "https://open.spotify.com/episode/0VerbatimMissing000000"],
    ["an Apple show the directory does not list", "https://podcasts.apple.com/us/podcast/id1559999999?i=1000659999999"],
  ])("for %s", async (_, link) => {
    await expectRefused({ video: link }, 422, "unavailable");
  });
});

describe("the public-address rule holds for what the directory answers", () => {
  it("422 invalid_input (3005) when Apple's directory points the feed at a private address, which is never asked", async () => {
    const from = double.requests.length;
    const error = await expectRefused(
      { video: "https://podcasts.apple.com/us/podcast/id1550000003?i=1000650000031" },
      422,
      "invalid_input",
    );
    expect(error.message).toBe(
      "http://10.0.0.7/feed.xml points to 10.0.0.7, a private address; only public addresses are fetched (VERBATIM_ALLOW_PRIVATE_TARGETS=1 lifts this).",
    );
    // Not even a tunnel: the proxy never hears of the address.
    expect(double.requests.slice(from).filter((request) => request.url.includes("10.0.0.7"))).toEqual([]);
  });
});
