import { readFile } from "node:fs/promises";
import { eventually } from "@verbatim/testkit/eventually";
import { podcastFixture } from "@verbatim/testkit/fake-podcast-host";
import { type PlatformDouble, startPlatformDouble } from "@verbatim/testkit/platform-double";
import { sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AudioServer, startAudioServer } from "../audio/harness.ts";
import { fetchTranscript, type Loose } from "../audio/requests.ts";
import { send } from "../support/http.ts";
import { type Receiver, startReceiver } from "../webhooks/receiver.ts";
import { podcastDoubleFolders } from "./podcast-double.ts";

// Apple Podcasts and Spotify shows as channels, Apple's directory as search, and a monitor on an
// Apple show, over HTTP against the platform double's Apple directory, Spotify oEmbed answers and
// the feed they lead to (packages/testkit/fixtures/platforms/{apple-podcasts,spotify,
// podcast-feeds}/SOURCE.md say which id stands for which case).

const feedUrl = "https://podcasts.example/feeds/transcript-formats.xml";
const appleShow = "https://podcasts.apple.com/us/podcast/podcasting-q-a/id1550000001";
const spotifyShow = "https://open.spotify.com/show/0VerbatimShowQandA0000";
const feedTitles = [
  "Do We Need a Podcast Trailer? (VTT)",
  "Ask Not (no transcript)",
  "I Am Your Father (JSON)",
  "Ten Things We Wish We Knew (HTML)",
  "Ten Things We Wish We Knew (SRT)",
];

let double: PlatformDouble;
let server: AudioServer;
let receiver: Receiver;

beforeAll(async () => {
  double = await startPlatformDouble({ platforms: podcastDoubleFolders });
  receiver = await startReceiver();
  // No workers: the 11 s clip is answered inline.
  server = await startAudioServer({ workers: 0, podcastDouble: double, monitors: true, credits: 10_000 });
}, 120_000);

afterAll(async () => {
  await server?.close();
  await receiver?.close();
  await double?.close();
});

function post(path: string, json: Record<string, unknown>) {
  return send(server, { method: "POST", path: `/api/v2/${path}`, json });
}

/** Fetches each row's url through /transcripts/video: each answers the row's item, and the transcripts. */
async function expectEveryRowFetches(rows: Loose[]): Promise<Loose[]> {
  const transcripts: Loose[] = [];
  for (const row of rows) {
    const answer = await fetchTranscript(server, { video: row.url });
    expect(answer.status, answer.text).toBe(200);
    expect((answer.body as Loose).data).toMatchObject({ video_id: row.videoId, url: row.url });
    transcripts.push((answer.body as Loose).data);
  }
  return transcripts;
}

describe("POST /transcripts/channel with a show link: 200, the show's feed as rows", () => {
  let appleRows: Loose[];

  it("lists an Apple Podcasts show as its public feed, newest first, with platform apple", async () => {
    const answer = await post("transcripts/channel", { channel: appleShow, limit: 10 });
    expect(answer.status, answer.text).toBe(200);
    const { data } = answer.body as Loose;
    expect(data).toMatchObject({ kind: "video_list", source: "channel", platform: "apple", next_cursor: null });
    appleRows = data.videos;
    expect(appleRows.map((row) => row.title)).toEqual(feedTitles);
    expect(appleRows[0]).toMatchObject({
      url: "https://podcasts.example/media/ep-vtt.mp3",
      channel: "Podcasting Q&A (Verbatim test feed)",
      publishedAt: "2020-10-09T04:30:00.000Z",
    });
  });

  it("gives rows whose every url /transcripts/video fetches as that episode", async () => {
    await expectEveryRowFetches(appleRows);
  });

  it("lists a Spotify show as the same feed, found by its name, with platform spotify", async () => {
    const answer = await post("transcripts/channel", { channel: `${spotifyShow}?si=abc`, limit: 10 });
    expect(answer.status, answer.text).toBe(200);
    expect((answer.body as Loose).data).toMatchObject({ platform: "spotify", videos: appleRows });
  });

  it("pages with signed cursors and trims at since_video_id", async () => {
    const first = await post("transcripts/channel", { channel: appleShow, limit: 2 });
    const { data } = first.body as Loose;
    expect(data.videos).toEqual(appleRows.slice(0, 2));
    const second = await post("transcripts/channel", { channel: appleShow, limit: 2, cursor: data.next_cursor });
    expect((second.body as Loose).data.videos).toEqual(appleRows.slice(2, 4));
    const since = await post("transcripts/channel", { channel: appleShow, since_video_id: appleRows[2].url });
    expect((since.body as Loose).data).toMatchObject({ videos: appleRows.slice(0, 2), next_cursor: null });
  });
});

describe("POST /transcripts/channel with a show link: 422", () => {
  it("answers a Spotify exclusive with podcast_feed_not_found (3003), reason no_public_feed and the nearest feeds", async () => {
    const answer = await post("transcripts/channel", {
      channel: "https://open.spotify.com/show/0VerbatimOriginal00000",
    });
    expect(answer.status, answer.text).toBe(422);
    const { error } = answer.body as Loose;
    expect(error).toMatchObject({
      code: "podcast_feed_not_found",
      number: 3003,
      details: { reason: "no_public_feed" },
    });
    expect(error.details.candidates.length).toBeGreaterThan(0);
  });

  it("answers an Apple exclusive with podcast_feed_not_found (3003), reason no_public_feed and the nearest feeds", async () => {
    const answer = await post("transcripts/channel", { channel: "https://podcasts.apple.com/us/podcast/id1550000002" });
    expect(answer.status, answer.text).toBe(422);
    expect((answer.body as Loose).error).toMatchObject({
      code: "podcast_feed_not_found",
      number: 3003,
      details: {
        reason: "no_public_feed",
        candidates: ["https://feeds.example.org/exclusives-weekly.xml", "https://feeds.example.org/apple-talk.rss"],
      },
    });
  });

  it("answers an episode link with endpoint_platform_mismatch (3002), retry_with the video endpoint", async () => {
    const answer = await post("transcripts/channel", { channel: `${appleShow}?i=1000650000002` });
    expect(answer.status, answer.text).toBe(422);
    expect((answer.body as Loose).error).toMatchObject({
      code: "endpoint_platform_mismatch",
      number: 3002,
      retry_with: { endpoint: "/api/v2/transcripts/video" },
    });
  });

  it("refuses YouTube's tab for a show with invalid_request (1001) at /body/tab", async () => {
    const answer = await post("transcripts/channel", { channel: appleShow, tab: "shorts" });
    expect(answer.status, answer.text).toBe(400);
    expect((answer.body as Loose).error).toMatchObject({ code: "invalid_request", number: 1001 });
    expect((answer.body as Loose).error.issues).toEqual([{ path: "/body/tab", message: expect.any(String) }]);
  });
});

describe("POST /transcripts/search in Apple's directory: 200", () => {
  const episodeTitles = ["Do We Need a Podcast Trailer? (VTT)", "Ask Not (no transcript)", "I Am Your Father (JSON)"];

  it("answers platform apple with Apple Podcasts episode links, each fetched as that episode", async () => {
    const answer = await post("transcripts/search", { query: "Podcasting Q&A", platform: "apple", limit: 10 });
    expect(answer.status, answer.text).toBe(200);
    const { data } = answer.body as Loose;
    expect(data).toMatchObject({ source: "search", platform: "apple", next_cursor: null });
    expect(data.videos.map((row: Loose) => [row.title, row.url])).toEqual([
      [episodeTitles[0], "https://podcasts.apple.com/us/podcast/id1550000001?i=1000650000002"],
      [episodeTitles[1], "https://podcasts.apple.com/us/podcast/id1550000001?i=1000650000005"],
      [episodeTitles[2], "https://podcasts.apple.com/us/podcast/id1550000001?i=1000650000003"],
    ]);
    const transcripts = await expectEveryRowFetches(data.videos);
    expect(transcripts.map((transcript) => transcript.title)).toEqual(episodeTitles);
  });

  it("answers platform apple with type channel as shows whose url the channel endpoint lists", async () => {
    const answer = await post("transcripts/search", {
      query: "Podcasting Q&A (Verbatim test feed)",
      platform: "apple",
      type: "channel",
    });
    expect(answer.status, answer.text).toBe(200);
    const shows = (answer.body as Loose).data.videos;
    expect(shows.map((row: Loose) => [row.kind, row.title])).toEqual([
      ["channel", "Podcasting Q&A Daily"],
      ["channel", "Podcasting Q&A (Verbatim test feed)"],
    ]);
    const listed = await post("transcripts/channel", { channel: shows[1].url });
    expect(listed.status, listed.text).toBe(200);
    expect((listed.body as Loose).data.platform).toBe("apple");
  });

  it("answers platform rss with the episodes' audio files, each fetched as that file", async () => {
    const answer = await post("transcripts/search", { query: "Podcasting Q&A", platform: "rss", limit: 10 });
    expect(answer.status, answer.text).toBe(200);
    const { data } = answer.body as Loose;
    expect(data).toMatchObject({ platform: "rss" });
    expect(data.videos.map((row: Loose) => row.url)).toEqual([
      "https://podcasts.example/media/ep-vtt.mp3",
      "https://podcasts.example/media/ep-plain.mp3",
      "https://podcasts.example/media/ep-json.mp3",
    ]);
    await expectEveryRowFetches(data.videos);
  });

  it("answers platform rss with type channel as the shows' feeds", async () => {
    const answer = await post("transcripts/search", {
      query: "Podcasting Q&A (Verbatim test feed)",
      platform: "rss",
      type: "channel",
    });
    expect(answer.status, answer.text).toBe(200);
    expect((answer.body as Loose).data.videos.map((row: Loose) => row.url)).toEqual([
      "https://feeds.example.org/podcasting-qa-daily.xml",
      feedUrl,
    ]);
  });
});

describe("POST /transcripts/search: 422 unsupported_platform", () => {
  it("answers spotify on a server without Spotify credentials with 3001, naming the settings that enable it", async () => {
    const answer = await post("transcripts/search", { query: "Podcasting Q&A", platform: "spotify" });
    expect(answer.status, answer.text).toBe(422);
    const { error } = answer.body as Loose;
    expect(error).toMatchObject({ code: "unsupported_platform", number: 3001 });
    expect(error.message).toMatch(/VERBATIM_SPOTIFY_CLIENT_ID and VERBATIM_SPOTIFY_CLIENT_SECRET/);
  });

  it("answers type playlist in Apple's directory with 3001", async () => {
    const answer = await post("transcripts/search", { query: "Podcasting Q&A", platform: "apple", type: "playlist" });
    expect(answer.status, answer.text).toBe(422);
    expect((answer.body as Loose).error).toMatchObject({ code: "unsupported_platform", number: 3001 });
  });
});

describe("a monitor on an Apple Podcasts show", () => {
  it("is a podcast monitor on the show's feed that reports a new episode in one signed event, delivered once", async () => {
    const created = await post("monitors", { target: appleShow, webhook_url: receiver.url("/apple") });
    expect(created.status, created.text).toBe(201);
    const monitor = (created.body as Loose).data;
    expect(monitor).toMatchObject({ platform: "podcast", target: appleShow, options: {}, baseline_count: 5 });

    const feed = await readFile(podcastFixture("verbatim/transcript-formats.xml"), "utf8");
    const withdraw = double.serve({
      url: feedUrl,
      headers: { "content-type": "application/rss+xml; charset=utf-8" },
      text: feed.replace(
        "<item>",
        `<item>
            <title>A New Episode</title>
            <guid isPermaLink="false">verbatim-ep-new</guid>
            <pubDate>Mon, 12 Oct 2020 04:30:00 GMT</pubDate>
            <enclosure url="https://podcasts.example/media/ep-new.mp3" length="76447" type="audio/mpeg" />
        </item>
        <item>`,
      ),
    });
    try {
      const check = await send(server, { method: "POST", path: `/api/v2/monitors/${monitor.id}/check` });
      expect(check.status, check.text).toBe(200);
      expect((check.body as Loose).data).toMatchObject({ new_videos: 1 });
    } finally {
      withdraw();
    }

    const rows = await eventually(async () => {
      const deliveries = await server.store.query<{ status: string; attempts: number }>(
        sql`select status, attempts from webhook_deliveries where monitor_id = ${monitor.id}`,
      );
      return deliveries.length === 1 && deliveries[0]?.status === "delivered" ? deliveries : null;
    }, 30_000);
    expect(rows[0]?.attempts).toBe(1);
    const received = receiver.requests.filter((request) => request.path === "/apple");
    expect(received).toHaveLength(1);
    const [request] = received;
    const event = new Webhook(monitor.webhook_secret).verify(request?.body ?? "", {
      "webhook-id": String(request?.headers["webhook-id"]),
      "webhook-timestamp": String(request?.headers["webhook-timestamp"]),
      "webhook-signature": String(request?.headers["webhook-signature"]),
    }) as Loose;
    expect(event).toMatchObject({
      type: "monitor.videos",
      monitor: { id: monitor.id, platform: "podcast", target: appleShow },
      data: { videos: [{ title: "A New Episode", url: "https://podcasts.example/media/ep-new.mp3" }] },
    });
  });
});
