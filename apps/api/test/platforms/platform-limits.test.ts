import { eventually } from "@verbatim/testkit/eventually";
import { type PlatformDouble, startPlatformDouble } from "@verbatim/testkit/platform-double";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AudioServer, startAudioServer } from "../audio/harness.ts";
import { fetchTranscript, type Loose } from "../audio/requests.ts";
import { type Answer, send } from "../support/http.ts";

// What one request may make the service read from a platform, end to end: the route, the real
// yt-dlp in its sidecar, the egress guard and the platform double, whose answers a test replaces
// (`serve`) or holds (`hold`) for as long as it needs.

const dailymotionCaptioned = "https://www.dailymotion.com/video/x8jfk01";
const dailymotionCaptionFile = "https://static2.dmcdn.net/static/video/215/684/548486512:subtitle_en.srt";
const xCaptioned = "https://x.com/verbatimtests/status/1900000000000000001";
const xSubtitlePlaylist = "https://video.twimg.com/amplify_video/1900000000000000101/pl/subs/en/Verbatim101s.m3u8";
const xPieces = "https://video.twimg.com/subtitles/amplify_video/1900000000000000101/";

let double: PlatformDouble;
let server: AudioServer;

beforeAll(async () => {
  double = await startPlatformDouble();
  server = await startAudioServer({ platformDouble: double, credits: 10_000, workers: 0 });
}, 120_000);

afterAll(async () => {
  await server?.close();
  await double?.close();
});

const balance = () => server.platform.credits.balance(server.account.id);

const requestsTo = (prefix: string) => double.requests.filter((request) => request.url.startsWith(prefix));

function expectRefused(answer: Answer, message?: RegExp): void {
  expect(answer.status, answer.text).toBe(422);
  const { error } = answer.body as Loose;
  expect(error).toMatchObject({ code: "invalid_input", number: 3005 });
  if (message) expect(error.message).toMatch(message);
}

/** A WebVTT HLS media playlist listing `pieces`, as X serves a caption track. */
function subtitlePlaylist(pieces: string[]): string {
  const header = ["#EXTM3U", "#EXT-X-VERSION:6", "#EXT-X-TARGETDURATION:1", "#EXT-X-PLAYLIST-TYPE:VOD"];
  return [...header, ...pieces.flatMap((piece) => ["#EXTINF:0.500,", piece]), "#EXT-X-ENDLIST", ""].join("\n");
}

/** A piece of WebVTT whose one cue says `words`, `index` half-seconds in. */
function vttPiece(index: number, words: string): string {
  const at = (seconds: number) => `00:00:${seconds.toFixed(3).padStart(6, "0")}`;
  return `WEBVTT\n\n${at(index * 0.5)} --> ${at(index * 0.5 + 0.4)}\n${words}\n`;
}

describe("422: a caption larger than the byte cap", () => {
  it("refuses an 11.6 MB caption file, charges nothing and stores nothing, however often it is asked for", async () => {
    // Long cues, so that the file holds fewer than the cues a parser is known to choke on.
    const words = "ask not what your country can do for you, ask what you can do for your country ".repeat(3);
    const cue = (index: number) => `${index}\n00:00:01,000 --> 00:00:02,000\n${words}\n\n`;
    const cues: string[] = [];
    let length = 0;
    for (let index = 1; length < 11_600_000; index += 1) {
      cues.push(cue(index));
      length += cues.at(-1)?.length ?? 0;
    }
    const withdraw = double.serve({
      url: dailymotionCaptionFile,
      headers: { "content-type": "application/x-subrip" },
      text: cues.join(""),
    });
    try {
      const before = await balance();
      for (const attempt of ["first", "again"]) {
        const reads = requestsTo(dailymotionCaptionFile).length;
        const answer = await fetchTranscript(server, { video: dailymotionCaptioned });
        expectRefused(answer);
        // Not a store hit: each request reads the file again, and is refused again.
        expect(requestsTo(dailymotionCaptionFile).length - reads, attempt).toBe(1);
      }
      expect(await balance()).toBe(before);
    } finally {
      withdraw();
    }
  });
});

describe("a caption track that is an HLS playlist of pieces", () => {
  it("refuses a playlist of more than 300 pieces before reading any, and charges nothing", async () => {
    const pieces = Array.from({ length: 301 }, (_, index) => `many-${index}.vtt`);
    const withdraw = [
      double.serve({ url: xSubtitlePlaylist, text: subtitlePlaylist(pieces.map((piece) => `${xPieces}${piece}`)) }),
      double.serve({ url: `${xPieces}many-`, match: "prefix", text: vttPiece(0, "ask not") }),
    ];
    try {
      const before = await balance();
      const answer = await fetchTranscript(server, { video: xCaptioned });
      expectRefused(answer, /come in 301 pieces; this server reads at most 300/);
      expect(requestsTo(`${xPieces}many-`)).toEqual([]);
      expect(await balance()).toBe(before);
    } finally {
      for (const undo of withdraw) undo();
    }
  });

  it("refuses a playlist with a piece on another host, fetching nothing from either", async () => {
    const foreign = "https://pbs.twimg.com/subtitles/elsewhere.vtt";
    const withdraw = [
      double.serve({ url: xSubtitlePlaylist, text: subtitlePlaylist([`${xPieces}own-1.vtt`, foreign]) }),
      double.serve({ url: `${xPieces}own-1.vtt`, text: vttPiece(0, "ask not") }),
      double.serve({ url: foreign, text: vttPiece(1, "what your country") }),
    ];
    try {
      const before = await balance();
      const answer = await fetchTranscript(server, { video: xCaptioned });
      expectRefused(answer, /a piece on pbs\.twimg\.com, not on their playlist's video\.twimg\.com/);
      expect(double.requests.filter((request) => request.url.includes("pbs.twimg.com"))).toEqual([]);
      expect(requestsTo(`${xPieces}own-1.vtt`)).toEqual([]);
      expect(await balance()).toBe(before);
    } finally {
      for (const undo of withdraw) undo();
    }
  });

  it("reads the pieces in order over one connection to the platform", async () => {
    const words = Array.from({ length: 20 }, (_, index) => `piece number ${index + 1}`);
    const withdraw = [
      double.serve({
        url: xSubtitlePlaylist,
        text: subtitlePlaylist(words.map((_, index) => `${xPieces}piece-${index + 1}.vtt`)),
      }),
      ...words.map((text, index) =>
        double.serve({ url: `${xPieces}piece-${index + 1}.vtt`, text: vttPiece(index, text) }),
      ),
    ];
    try {
      const answer = await fetchTranscript(server, { video: xCaptioned });
      expect(answer.status, answer.text).toBe(200);
      const { data } = answer.body as Loose;
      expect(data.segments.map((segment: Loose) => segment.text)).toEqual(words);
      const pieceReads = requestsTo(`${xPieces}piece-`);
      expect(pieceReads.map((request) => request.url)).toEqual(
        words.map((_, index) => `${xPieces}piece-${index + 1}.vtt`),
      );
      const connections = new Set(pieceReads.map((request) => request.connection));
      expect(connections.size).toBe(1);
      const [connection] = connections;
      const tunnels = double.requests.filter(
        (request) => request.method === "CONNECT" && request.connection === connection,
      );
      expect(tunnels.map((request) => request.url)).toEqual(["video.twimg.com:443"]);
    } finally {
      for (const undo of withdraw) undo();
    }
  });
});

describe("the yt-dlp sidecar, shared by every account", () => {
  it("serves another account while one account's slow listings wait beyond its share", async () => {
    const busy = await server.platform.accounts.create({ plan: "mega", name: "busy" });
    const heldPage = "https://www.tiktok.com/@verbatim.tests/video/7400000000000000008";
    const release = double.hold(heldPage);
    try {
      const listings = Array.from({ length: 10 }, () =>
        send(server, {
          method: "POST",
          path: "/api/v2/transcripts/languages",
          json: { video: heldPage },
          headers: { authorization: `Bearer ${busy.key.key}` },
        }),
      );
      let listed = 0;
      for (const listing of listings) void listing.then(() => (listed += 1));
      await eventually(() => requestsTo(heldPage).length >= 2);
      const answer = await fetchTranscript(server, { video: "https://player.vimeo.com/video/76979871" });
      expect(answer.status, answer.text).toBe(200);
      // The other account was served while the busy one's backlog stood still: its share of the
      // sidecar's calls (2) waits on the platform, and none of its 10 listings has answered.
      expect(requestsTo(heldPage)).toHaveLength(2);
      expect(listed).toBe(0);
      release();
      for (const listing of await Promise.all(listings)) expect(listing.status, listing.text).toBe(200);
      expect(requestsTo(heldPage)).toHaveLength(10);
    } finally {
      release();
    }
  });
});
