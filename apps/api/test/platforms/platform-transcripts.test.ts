import { readFile } from "node:fs/promises";
import { type PlatformDouble, platformFixture, startPlatformDouble } from "@verbatim/testkit/platform-double";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AudioServer, startAudioServer } from "../audio/harness.ts";
import { fetchTranscript, type Loose, pollUntilFinished } from "../audio/requests.ts";
import { send } from "../support/http.ts";

// Every platform read through yt-dlp, end to end: the route, the transcript service, the real
// yt-dlp in its sidecar, the egress guard, and the platform double standing in for the sites
// (packages/testkit/fixtures/platforms/*/SOURCE.md say what each answer mirrors). The JFK clip says "ask not
// what your country can do for you"; the speech engine hears it, the captions spell it.
const jfkWords = /what your country can do for you/i;

async function recordedInfo(platform: string, scenario: string): Promise<Loose> {
  return JSON.parse(await readFile(platformFixture(`${platform}/info/${scenario}.json`), "utf8"));
}

/** Every media and caption address an info dict holds: signed, and never to be served. */
function signedAddressesOf(info: Loose): string[] {
  const captionFiles = [...Object.values(info.subtitles ?? {}), ...Object.values(info.automatic_captions ?? {})].flat();
  return [...(info.formats ?? []), ...captionFiles].map((file: Loose) => file.url).filter(Boolean);
}

/** The account's balance, from `GET /me`. */
async function credits(): Promise<number> {
  const me = await send(server, { method: "GET", path: "/api/v2/me" });
  expect(me.status, me.text).toBe(200);
  return (me.body as Loose).data.credits;
}

function wordsOf(data: Loose): string {
  return data.segments.map((segment: Loose) => segment.text).join(" ");
}

let double: PlatformDouble;
let server: AudioServer;

beforeAll(async () => {
  double = await startPlatformDouble();
  server = await startAudioServer({ platformDouble: double, credits: 10_000 });
}, 120_000);

afterAll(async () => {
  await server?.close();
  await double?.close();
});

describe("200: the platform's own captions, 1 credit", () => {
  it.each([
    ["tiktok", "https://www.tiktok.com/@verbatim.tests/video/7400000000000000001", "7400000000000000001", "auto"],
    ["x", "https://x.com/verbatimtests/status/1900000000000000001", "1900000000000000001", "manual"],
    ["loom", "https://www.loom.com/share/c0ffee00000000000000000000000001", "c0ffee00000000000000000000000001", "auto"],
    ["vimeo", "https://player.vimeo.com/video/76979871", "76979871", "manual"],
    ["dailymotion", "https://www.dailymotion.com/video/x8jfk01", "x8jfk01", "manual"],
    ["facebook", "https://www.facebook.com/radiokicksfm/videos/3676516585958356/", "3676516585958356", "manual"],
  ])("reads %s captions", async (platform, video, videoId, captionKind) => {
    const answer = await fetchTranscript(server, { video });
    expect(answer.status, answer.text).toBe(200);
    const body = answer.body as Loose;
    expect(body.data).toMatchObject({ platform, source: "captions", caption_kind: captionKind, speech_engine: null });
    expect(body.data.video_id).toBe(videoId);
    expect(body.data.language).toMatch(/^en\b/);
    expect(wordsOf(body.data)).toMatch(jfkWords);
    expect(body.usage.credits_spent).toBe(1);
  });

  it("gives the details yt-dlp read: title, creator, duration, publication and canonical URL, and no signed address", async () => {
    const answer = await fetchTranscript(server, { video: "https://player.vimeo.com/video/76979871" });
    expect(answer.status, answer.text).toBe(200);
    const { data } = answer.body as Loose;
    expect(data.title).toEqual(expect.any(String));
    expect(data.channel).toEqual(expect.any(String));
    expect(data.duration).toBeGreaterThan(0);
    expect(data.url).toMatch(/^https:\/\/(player\.)?vimeo\.com\//);
    const served = JSON.stringify(answer.body);
    for (const address of signedAddressesOf(await recordedInfo("vimeo", "captions"))) {
      expect(served).not.toContain(address);
    }
  });

  it("stores a track per platform, item, language and kind, and serves it again once the item resolves again", async () => {
    const video = "https://www.dailymotion.com/video/x8jfk01";
    const captionFile = (request: { url: string }) => request.url.includes("subtitle_en.srt");
    const itemLookups = (request: { url: string }) => request.url.includes("/player/metadata/video/x8jfk01");
    const before = {
      captions: double.requests.filter(captionFile).length,
      lookups: double.requests.filter(itemLookups).length,
    };
    const first = await fetchTranscript(server, { video });
    const again = await fetchTranscript(server, { video, language: "en" });
    const answers = [first, again];
    for (const answer of answers) expect(answer.status, answer.text).toBe(200);
    expect((again.body as Loose).data).toEqual((first.body as Loose).data);
    expect(double.requests.filter(captionFile).length - before.captions).toBeLessThanOrEqual(1);
    expect(double.requests.filter(itemLookups).length - before.lookups).toBe(2);
    for (const answer of answers) expect((answer.body as Loose).usage.credits_spent).toBe(1);
  });

  it("takes a bare TikTok id as the TikTok video it names", async () => {
    const answer = await fetchTranscript(server, { video: "7400000000000000001" });
    expect(answer.status, answer.text).toBe(200);
    expect((answer.body as Loose).data).toMatchObject({ platform: "tiktok", video_id: "7400000000000000001" });
  });
});

describe("200: speech recognition of the platform's audio, within the request", () => {
  it.each([
    ["tiktok", "https://www.tiktok.com/@verbatim.tests/video/7400000000000000002"],
    ["x", "https://x.com/verbatimtests/status/1900000000000000002"],
    ["loom", "https://www.loom.com/share/c0ffee00000000000000000000000002"],
    ["instagram", "https://www.instagram.com/reel/Chunk8-jurw/"],
    ["vimeo", "https://player.vimeo.com/video/98044508"],
    ["dailymotion", "https://www.dailymotion.com/video/x8spch2"],
    ["facebook", "https://www.facebook.com/watch/?v=647537299265662"],
    ["twitch", "https://www.twitch.tv/videos/2300000001"],
    ["twitch", "https://clips.twitch.tv/VerbatimTestsAskNotClip-Jfk1961Inaugural"],
  ])("transcribes %s audio (%s)", async (platform, video) => {
    const answer = await fetchTranscript(server, { video });
    expect(answer.status, answer.text).toBe(200);
    const body = answer.body as Loose;
    expect(body.data).toMatchObject({ platform, source: "audio", caption_kind: null });
    expect(body.data.speech_engine).not.toBeNull();
    expect(wordsOf(body.data)).toMatch(jfkWords);
    expect(body.usage.credits_spent).toBe(1);
  });

  it("skips the captions when mode is audio", async () => {
    const answer = await fetchTranscript(server, { video: "https://www.dailymotion.com/video/x8jfk01", mode: "audio" });
    expect(answer.status, answer.text).toBe(200);
    expect((answer.body as Loose).data).toMatchObject({ platform: "dailymotion", source: "audio" });
  });
});

describe("422: what the platform said about the item", () => {
  it.each([
    [
      "a TikTok post its owner keeps private",
      "https://www.tiktok.com/@verbatim.tests/video/7400000000000000003",
      "private",
      4001,
    ],
    [
      "a TikTok post behind TikTok's login wall",
      "https://www.tiktok.com/@verbatim.tests/video/7400000000000000005",
      "private",
      4001,
    ],
    ["a protected post on X", "https://x.com/verbatimtests/status/1900000000000000003", "private", 4001],
    ["a deleted post on X", "https://x.com/verbatimtests/status/1900000000000000004", "unavailable", 4002],
    ["an X post marked sensitive", "https://x.com/verbatimtests/status/1900000000000000005", "age_restricted", 4004],
    ["a password-protected Loom", "https://www.loom.com/share/c0ffee00000000000000000000000005", "private", 4001],
    [
      "an Instagram post for followers only",
      "https://www.instagram.com/p/CPriv4te0abAQCmW3rZt8y7Jk2LqXa5NvB0dEfH/",
      "private",
      4001,
    ],
    ["an Instagram reel for adults", "https://www.instagram.com/reel/DAgeGate0x1/", "age_restricted", 4004],
    ["a deleted Instagram post", "https://www.instagram.com/p/DGone0000x1/", "unavailable", 4002],
    ["a password-protected Vimeo video", "https://player.vimeo.com/video/444555666", "private", 4001],
    ["a deleted Vimeo video", "https://player.vimeo.com/video/123000456", "unavailable", 4002],
    ["a deleted Dailymotion video", "https://www.dailymotion.com/video/x8gone5", "unavailable", 4002],
    [
      "a Dailymotion video blocked in this country",
      "https://www.dailymotion.com/video/x8geob4",
      "region_blocked",
      4005,
    ],
    ["a Facebook video for signed-in accounts", "https://www.facebook.com/watch/?v=1195289147628387", "private", 4001],
    ["a deleted Facebook video", "https://www.facebook.com/video.php?v=274175099429670", "unavailable", 4002],
    ["a subscriber-only Twitch VOD", "https://www.twitch.tv/videos/2300000003", "members_only", 4003],
    ["a deleted Twitch VOD", "https://www.twitch.tv/videos/2300000004", "unavailable", 4002],
    ["a deleted Twitch clip", "https://clips.twitch.tv/VerbatimTestsDeletedClip-Gone0000000000", "unavailable", 4002],
    ["a Twitch VOD blocked in this country", "https://www.twitch.tv/videos/2300000006", "region_blocked", 4005],
  ])("answers %s with %s", async (_what, video, code, number) => {
    const answer = await fetchTranscript(server, { video });
    expect(answer.status, answer.text).toBe(422);
    const error = (answer.body as Loose).error;
    expect(error).toMatchObject({ code, number });
    expect(error.message).not.toMatch(/--cookies|yt-dlp\/wiki|github\.com/);
  });

  it("answers no_captions with retry_with mode audio when captions alone are asked of a video without them", async () => {
    const answer = await fetchTranscript(server, {
      video: "https://www.tiktok.com/@verbatim.tests/video/7400000000000000002",
      mode: "captions",
    });
    expect(answer.status, answer.text).toBe(422);
    expect((answer.body as Loose).error).toMatchObject({
      code: "no_captions",
      number: 4103,
      retry_with: { mode: "audio" },
    });
  });
});

describe("503: the platform refused us", () => {
  it.each([
    ["X's rate limit", "https://x.com/verbatimtests/status/1900000000000000006"],
    ["Loom's rate limit", "https://www.loom.com/share/c0ffee00000000000000000000000006"],
    ["Vimeo's TLS fingerprint block", "https://player.vimeo.com/video/987654321"],
    ["Instagram's login redirect for anonymous readers", "https://www.instagram.com/p/DLgnWa11Rdr/"],
  ])("answers %s as upstream_error, never 429", async (_what, video) => {
    const answer = await fetchTranscript(server, { video });
    expect(answer.status, answer.text).toBe(503);
    expect((answer.body as Loose).error).toMatchObject({ code: "upstream_error", number: 5001 });
  });

  it("answers TikTok's unsolved bot check as parse_error: yt-dlp sees a page without the video's data", async () => {
    const answer = await fetchTranscript(server, {
      video: "https://www.tiktok.com/@verbatim.tests/video/7400000000000000006",
    });
    expect(answer.status, answer.text).toBe(503);
    expect((answer.body as Loose).error).toMatchObject({ code: "parse_error", number: 5005 });
  });
});

describe("the egress guard", () => {
  it.each([
    ["tiktok", "https://www.tiktok.com/@verbatim.tests/video/7400000000000000007"],
    ["instagram", "https://www.instagram.com/reel/DPrvMedia01/"],
    ["vimeo", "https://player.vimeo.com/video/111222333"],
  ])("refuses %s media on a private address, and nothing is charged", async (_platform, video) => {
    const before = double.requests.length;
    const answer = await fetchTranscript(server, { video, mode: "audio" });
    expect(answer.status, answer.text).toBe(422);
    expect((answer.body as Loose).error).toMatchObject({ code: "invalid_input", number: 3005 });
    expect((answer.body as Loose).error.message).toContain("10.20.30.40");
    expect(double.requests.slice(before).some((request) => request.url.includes("10.20.30.40"))).toBe(false);
  });

  // The double is the upstream proxy here, and would read 2130706433 and 0x7f.1 as 127.0.0.1.
  it.each([
    ["whose caption file redirects to https://2130706433/r.vtt", "7400000000000000031", "captions", "2130706433"],
    ["whose media is on https://0x7f.1/", "7400000000000000031", "audio", "0x7f.1"],
    ["whose page redirects to https://2130706433/", "7400000000000000032", "captions", "2130706433"],
  ])("refuses a TikTok post %s before the proxy sees the host: 422, nothing charged", async (_what, id, mode, host) => {
    const before = double.requests.length;
    const creditsBefore = await credits();
    const video = `https://www.tiktok.com/@verbatim.tests/video/${id}`;
    const answer = await fetchTranscript(server, { video, mode });
    expect(answer.status, answer.text).toBe(422);
    const { error } = answer.body as Loose;
    expect(error).toMatchObject({ code: "invalid_input", number: 3005 });
    expect(error.message).toBe(
      `${video} leads to ${host} (a loopback address, 127.0.0.1), which this server does not connect to.`,
    );
    const connects = double.requests.slice(before).filter((request) => request.method === "CONNECT");
    expect(connects.length).toBeGreaterThan(0);
    const elsewhere = connects.filter((request) => !request.url.startsWith("www.tiktok.com:"));
    expect(elsewhere.map(({ method, url }) => ({ method, url }))).toEqual(
      mode === "captions" && id.endsWith("31")
        ? [{ method: "CONNECT", url: "v16-webapp-prime.us.tiktok.com:443" }]
        : [],
    );
    expect(await credits()).toBe(creditsBefore);
  });

  it("refuses a TikTok address with a user name and password: 422, the password nowhere, nothing fetched", async () => {
    const before = double.requests.length;
    const answer = await fetchTranscript(server, {
      video: "https://listener:s3cret-pw-31@www.tiktok.com/@verbatim.tests/video/7400000000000000001",
    });
    expect(answer.status, answer.text).toBe(422);
    expect((answer.body as Loose).error).toMatchObject({ code: "invalid_input", number: 3005 });
    expect(answer.text).not.toContain("s3cret-pw-31");
    expect(double.requests.slice(before)).toEqual([]);
  });

  it("answers a TLS failure behind the proxy with the catalog's words, never OpenSSL's or the proxy's", async () => {
    const answer = await fetchTranscript(server, {
      video: "https://www.tiktok.com/@verbatim.tests/video/7400000000000000033",
      mode: "captions",
    });
    expect(answer.status, answer.text).toBe(503);
    const { error } = answer.body as Loose;
    expect(error).toMatchObject({ code: "connection", number: 5003 });
    expect(error.message).toBe("The connection to the platform failed. Nothing was charged; retry with backoff.");
  });
});

describe("202: a job, completed by a worker", () => {
  let jobServer: AudioServer;

  beforeAll(async () => {
    jobServer = await startAudioServer({ platformDouble: double, credits: 10_000, inlineAudioSeconds: 0 });
  }, 120_000);

  afterAll(async () => {
    await jobServer?.close();
  });

  it.each([
    ["tiktok", "https://www.tiktok.com/@verbatim.tests/video/7400000000000000002"],
    ["instagram", "https://www.instagram.com/reel/Chunk8-jurw/"],
    ["x", "https://x.com/verbatimtests/status/1900000000000000002"],
    ["vimeo", "https://player.vimeo.com/video/98044508"],
    ["facebook", "https://www.facebook.com/watch/?v=647537299265662"],
    ["dailymotion", "https://www.dailymotion.com/video/x8spch2"],
    ["twitch", "https://www.twitch.tv/videos/2300000001"],
    ["loom", "https://www.loom.com/share/c0ffee00000000000000000000000002"],
  ])("transcribes %s audio as a job that stores no signed address", async (platform, video) => {
    const accepted = await fetchTranscript(jobServer, { video });
    expect(accepted.status, accepted.text).toBe(202);
    const job = accepted.body as Loose;
    expect(job.data).toMatchObject({ kind: "transcript_job", platform });
    const { answer } = await pollUntilFinished(jobServer, job.poll_url, 60_000);
    expect(answer.status, answer.text).toBe(200);
    const finished = answer.body as Loose;
    expect(finished.status).toBe("completed");
    expect(finished.data).toMatchObject({ platform, source: "audio" });
    expect(wordsOf(finished.data)).toMatch(jfkWords);
    expect(finished.usage.credits_spent).toBe(1);
  });
});
