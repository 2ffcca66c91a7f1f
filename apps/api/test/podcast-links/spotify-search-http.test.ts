import { type PlatformDouble, startPlatformDouble } from "@verbatim/testkit/platform-double";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AudioServer, startAudioServer } from "../audio/harness.ts";
import { fetchTranscript, type Loose } from "../audio/requests.ts";
import { send } from "../support/http.ts";
import { podcastDoubleFolders } from "./podcast-double.ts";

// Spotify's search through its Web API, on a server whose operator gave Spotify credentials,
// against the platform double's authored search answers (packages/testkit/fixtures/platforms/
// spotify/SOURCE.md): two pages of episodes, the first with a null result and a malformed id
// among them, and one page of shows.

const query = "Podcasting Q&A";
const trailer = "0VerbatimTrailer000000";
const father = "0VerbatimFather0000000";
const tenThings = "0VerbatimTenThingsSrt0";

let double: PlatformDouble;
let server: AudioServer;

beforeAll(async () => {
  double = await startPlatformDouble({ platforms: podcastDoubleFolders });
  server = await startAudioServer({
    workers: 0,
    podcastDouble: double,
    spotify: { clientId: "verbatim-test-client", clientSecret: "verbatim-test-secret" },
  });
}, 120_000);

afterAll(async () => {
  await server?.close();
  await double?.close();
});

function search(json: Record<string, unknown>) {
  return send(server, { method: "POST", path: "/api/v2/transcripts/search", json: { query, ...json } });
}

const searchesAsked = (from: number) =>
  double.requests
    .slice(from)
    .filter((request) => request.url.startsWith("https://api.spotify.com/v1/search"))
    .map((request) => new URL(request.url).searchParams.toString());

describe("POST /transcripts/search with platform spotify, on a server with Spotify's Web API", () => {
  it("pages through every episode Spotify found, leaving out results it cannot read, for 1 credit a page", async () => {
    const from = double.requests.length;
    const first = await search({ platform: "spotify", limit: 2 });
    expect(first.status, first.text).toBe(200);
    const firstPage = (first.body as Loose).data;
    expect(firstPage).toMatchObject({ kind: "video_list", platform: "spotify" });
    expect(firstPage.videos).toEqual([
      {
        videoId: trailer,
        url: `https://open.spotify.com/episode/${trailer}`,
        title: "Do We Need a Podcast Trailer? (VTT)",
        duration: 24.5,
        channel: null,
        publishedAt: "2020-10-09T00:00:00.000Z",
        stats: null,
        thumbnailUrl: "https://i.scdn.co/image/ab6765630000ba8a00000000000000000verbatim",
      },
      expect.objectContaining({ videoId: father, url: `https://open.spotify.com/episode/${father}` }),
    ]);
    expect((first.body as Loose).usage).toMatchObject({ credits_spent: 1 });
    expect(firstPage.next_cursor).toEqual(expect.any(String));

    const second = await search({ platform: "spotify", limit: 2, cursor: firstPage.next_cursor });
    expect(second.status, second.text).toBe(200);
    const secondPage = (second.body as Loose).data;
    expect(secondPage.videos.map((row: Loose) => row.videoId)).toEqual([tenThings]);
    expect(secondPage.next_cursor).toBeNull();
    expect((second.body as Loose).usage).toMatchObject({ credits_spent: 1 });
    expect(searchesAsked(from)).toEqual([
      "q=Podcasting+Q%26A&type=episode&limit=50&offset=0&market=US",
      "q=Podcasting+Q%26A&type=episode&limit=50&offset=50&market=US",
    ]);
  });

  it("fills a page from Spotify's next, and answers rows whose links the video endpoint transcribes", async () => {
    const answer = await search({ platform: "spotify", limit: 10 });
    expect(answer.status, answer.text).toBe(200);
    const rows: Loose[] = (answer.body as Loose).data.videos;
    expect(rows.map((row) => row.videoId)).toEqual([trailer, father, tenThings]);
    expect((answer.body as Loose).data.next_cursor).toBeNull();
    for (const row of rows) {
      const transcript = await fetchTranscript(server, { video: row.url });
      expect(transcript.status, transcript.text.slice(0, 500)).toBe(200);
      expect((transcript.body as Loose).data).toMatchObject({
        url: row.url,
        title: row.title,
        source: "captions",
        podcast: { resolved_via: "spotify", feed_url: "https://podcasts.example/feeds/transcript-formats.xml" },
      });
    }
  });

  it("trims the results at since_video_id, given as a row's videoId or url", async () => {
    for (const marker of [father, `https://open.spotify.com/episode/${father}?si=abc`]) {
      const answer = await search({ platform: "spotify", since_video_id: marker });
      expect(answer.status, answer.text).toBe(200);
      expect((answer.body as Loose).data.videos.map((row: Loose) => row.videoId)).toEqual([trailer]);
    }
  });

  it("answers shows with type channel, as links the channel endpoint lists", async () => {
    const answer = await search({ platform: "spotify", type: "channel" });
    expect(answer.status, answer.text).toBe(200);
    const rows: Loose[] = (answer.body as Loose).data.videos;
    expect(rows.map((row) => [row.url, row.title])).toEqual([
      ["https://open.spotify.com/show/0VerbatimShowQandA0000", "Podcasting Q&A (Verbatim test feed)"],
      ["https://open.spotify.com/show/0VerbatimOriginal00000", "Verbatim Spotify Original"],
    ]);
    expect(rows[0]?.thumbnail_url).toBe("https://i.scdn.co/image/ab67656300005f1f0verbatimshowqanda0000");
    const listed = await send(server, {
      method: "POST",
      path: "/api/v2/transcripts/channel",
      json: { channel: rows[0]?.url },
    });
    expect(listed.status, listed.text.slice(0, 500)).toBe(200);
    expect((listed.body as Loose).data).toMatchObject({ platform: "spotify" });
  });

  it("refuses type playlist with 422 unsupported_platform, free", async () => {
    const answer = await search({ platform: "spotify", type: "playlist" });
    expect(answer.status, answer.text).toBe(422);
    expect((answer.body as Loose).error).toMatchObject({ code: "unsupported_platform", number: 3001 });
  });

  it("refuses since_video_id that names no Spotify episode with 400 invalid_request", async () => {
    const answer = await search({ platform: "spotify", since_video_id: "https://podcasts.example/media/ep-vtt.mp3" });
    expect(answer.status, answer.text).toBe(400);
    expect((answer.body as Loose).error).toMatchObject({ code: "invalid_request", number: 1001 });
  });
});
