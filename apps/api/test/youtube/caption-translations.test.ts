import { fixture, fromFixture } from "@verbatim/testkit/fake-youtube";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverStartTimeoutMs, startYoutubeServer, type YoutubeTestServer } from "../support/youtube-server.ts";

// POST /transcripts/languages and translate_to on YouTube, against the fake YouTube: the recorded
// ANDROID player response of GJLlxj_dtq8 (9 tracks, all `isTranslatable`, 18 translation
// languages) and the authored German translation of its manual English track (`tlang=de`).
const surfaceGo = "GJLlxj_dtq8";
const captionsDisabled = "dsMFmonKDD4";
/** GJLlxj_dtq8's player response with every track marked untranslatable, under an id of its own. */
const untranslatable = "authoredNT1";

/** The recorded player response with `isTranslatable: false` on every track, derived here rather than stored. */
function untranslatablePlayer(): string {
  const response = JSON.parse(
    fixture("youtube-transcript-api/youtube.innertube.json.static").replaceAll(surfaceGo, untranslatable),
  );
  for (const track of response.captions.playerCaptionsTracklistRenderer.captionTracks) track.isTranslatable = false;
  return JSON.stringify(response);
}

const germanSegments = [
  { start: 0, duration: 2.31, text: "Microsofts Surface Go ist das kleinste" },
  { start: 2.31, duration: 2.95, text: "und günstigste Surface & es ist wirklich gut." },
  { start: 5.26, duration: 3.12, text: 'Das "Type Cover" wird separat verkauft.' },
];

/** Every language the player response offers, but English, the manual track's own. */
const englishTargets = [
  "ar",
  "zh-Hant",
  "nl",
  "fr",
  "de",
  "hi",
  "id",
  "it",
  "ja",
  "ko",
  "pt",
  "ru",
  "es",
  "th",
  "tr",
  "uk",
  "vi",
];

let yt: YoutubeTestServer;

beforeAll(async () => {
  yt = await startYoutubeServer({ credits: 100 });
  yt.fake
    .serveRecordedVideos()
    .player(untranslatable, { body: untranslatablePlayer() })
    .timedtext({ v: untranslatable, lang: "en" }, fromFixture("authored/GJLlxj_dtq8.en.srv3.xml"))
    .player(captionsDisabled, fromFixture("youtube-transcript-api/youtube_transcripts_disabled.innertube.json.static"));
}, serverStartTimeoutMs);

afterAll(async () => {
  await yt?.close();
});

function languages(video: string) {
  return yt.server.client.POST("/transcripts/languages", { body: { video } });
}

function transcript(body: {
  video: string;
  language?: string;
  translate_to?: string;
  mode?: "auto" | "captions" | "audio";
}) {
  return yt.server.client.POST("/transcripts/video", { body });
}

/** The transcript of a 200 body; fails the test on anything else. */
function transcriptOf(body: Awaited<ReturnType<typeof transcript>>["data"]) {
  const answered = body?.data;
  if (answered?.kind !== "transcript") throw new Error(`expected a transcript, got ${JSON.stringify(body)}`);
  return answered;
}

/** The `tlang` values of the caption downloads the fake saw for a video. */
function tlangsAskedOf(videoId: string): Array<{ lang: string | null; tlang: string | null }> {
  return yt.fake
    .requestsTo("/api/timedtext")
    .filter((request) => request.query.get("v") === videoId && request.query.has("tlang"))
    .map((request) => ({ lang: request.query.get("lang"), tlang: request.query.get("tlang") }));
}

describe("200: POST /transcripts/languages lists a YouTube video's tracks, free", () => {
  it("gives each track its language, name, kind and translation targets, the creator's first, charging nothing", async () => {
    const before = await yt.balance();
    const captionDownloads = yt.fake.requestsTo("/api/timedtext").length;
    const { data, error, response } = await languages(`https://www.youtube.com/watch?v=${surfaceGo}`);
    expect(response.status, JSON.stringify(error)).toBe(200);
    const listed = data?.data;
    expect(listed).toMatchObject({ kind: "caption_languages", video_id: surfaceGo, platform: "youtube" });
    expect(listed?.languages.map((track) => [track.language, track.kind, track.name])).toEqual([
      ["zh", "manual", "Chinese"],
      ["cs", "manual", "Czech"],
      ["en", "manual", "English"],
      ["de", "manual", "German"],
      ["hi", "manual", "Hindi"],
      ["ja", "manual", "Japanese"],
      ["ko", "manual", "Korean"],
      ["es", "manual", "Spanish"],
      ["en", "auto", "English (auto-generated)"],
    ]);
    const english = listed?.languages.find((track) => track.language === "en" && track.kind === "manual");
    expect(english?.translatable).toBe(true);
    expect(english?.translation_targets.map((target) => target.language)).toEqual(englishTargets);
    expect(english?.translation_targets).toContainEqual({ language: "zh-Hant", name: "Chinese (Traditional)" });
    const german = listed?.languages.find((track) => track.language === "de");
    expect(german?.translation_targets.map((target) => target.language)).not.toContain("de");
    expect(german?.translation_targets.map((target) => target.language)).toContain("en");
    expect(data?.usage).toEqual({ credits_spent: 0, balance: before, bytes: 0 });
    expect(await yt.balance()).toBe(before);
    expect(yt.fake.requestsTo("/api/timedtext").length).toBe(captionDownloads);
  });

  it("marks tracks YouTube does not translate as untranslatable, without targets", async () => {
    const { data, response } = await languages(untranslatable);
    expect(response.status).toBe(200);
    expect(data?.data.languages).toHaveLength(9);
    for (const track of data?.data.languages ?? []) {
      expect(track).toMatchObject({ translatable: false, translation_targets: [] });
    }
  });

  it("answers an empty list for a video whose captions are disabled", async () => {
    const { data, response } = await languages(captionsDisabled);
    expect(response.status).toBe(200);
    expect(data?.data).toEqual({
      kind: "caption_languages",
      video_id: captionsDisabled,
      platform: "youtube",
      languages: [],
    });
  });
});

describe("4xx: POST /transcripts/languages refuses what a transcript request refuses", () => {
  it("answers unavailable for a video YouTube took down, free", async () => {
    const before = await yt.balance();
    const { error, response } = await languages("authoredNW1");
    expect(response.status).toBe(422);
    expect(error?.error).toMatchObject({ code: "unavailable" });
    expect(await yt.balance()).toBe(before);
  });

  it("answers invalid_input for text that is no video", async () => {
    const { error } = await languages("not a video at all");
    expect(error?.error).toMatchObject({ code: "invalid_input" });
  });

  it("counts against the request allowance: the Free plan's eleventh call in a minute is 429", async () => {
    const { key } = await yt.server.platform.accounts.create({ plan: "free", credits: 5, name: "allowance" });
    const client = yt.server.clientFor(key.key);
    const remaining: Array<string | null> = [];
    for (let call = 0; call < 10; call++) {
      const { response } = await client.POST("/transcripts/languages", { body: { video: surfaceGo } });
      expect(response.status).toBe(200);
      remaining.push(response.headers.get("x-ratelimit-remaining"));
    }
    expect(remaining).toEqual(["9", "8", "7", "6", "5", "4", "3", "2", "1", "0"]);
    const { error, response } = await client.POST("/transcripts/languages", { body: { video: surfaceGo } });
    expect(response.status, JSON.stringify(error)).toBe(429);
    expect(error?.error).toMatchObject({ code: "rate_limited" });
    const me = await client.GET("/me");
    expect(me.data?.data.credits).toBe(5);
  });
});

describe("200: translate_to asks YouTube's translation of the chosen track", () => {
  it("answers the German translation of the English track, with both languages, for 1 credit", async () => {
    const untranslated = await transcript({ video: surfaceGo });
    expect(untranslated.data?.data).toMatchObject({ language: "en", caption_kind: "manual" });
    expect(untranslated.data?.data).not.toHaveProperty("source_language");
    const before = await yt.balance();
    const { data, error, response } = await transcript({ video: surfaceGo, translate_to: "de" });
    expect(response.status, JSON.stringify(error)).toBe(200);
    expect(data?.data).toMatchObject({
      video_id: surfaceGo,
      language: "de",
      source_language: "en",
      source: "captions",
      caption_kind: "auto",
    });
    expect(transcriptOf(data).segments).toEqual(germanSegments);
    expect(data?.usage.credits_spent).toBe(1);
    expect(await yt.balance()).toBe((before ?? 0) - 1);
    expect(tlangsAskedOf(surfaceGo)).toEqual([{ lang: "en", tlang: "de" }]);
  });

  it("stores the translation apart from the track: both are served again without an upstream call", async () => {
    const upstreamCalls = yt.fake.requests.length;
    const translated = await transcript({ video: `https://youtu.be/${surfaceGo}`, translate_to: "de" });
    const original = await transcript({ video: surfaceGo });
    expect(translated.data?.data).toMatchObject({ language: "de", source_language: "en" });
    expect(transcriptOf(translated.data).segments).toEqual(germanSegments);
    expect(original.data?.data).toMatchObject({ language: "en", caption_kind: "manual" });
    expect(original.data?.data).not.toHaveProperty("source_language");
    expect(transcriptOf(original.data).segments?.[0]?.text).toBe("Microsoft's Surface Go is the smallest");
    expect(yt.fake.requests.length).toBe(upstreamCalls);
    const stored = await yt.server.platform.store.query<{
      language: string;
      caption_kind: string;
      source_language: string | null;
    }>(
      sql`select language, caption_kind, source_language from stored_transcripts where video_id = ${surfaceGo} order by id`,
    );
    expect(stored).toEqual([
      { language: "en", caption_kind: "manual", source_language: null },
      { language: "de", caption_kind: "auto", source_language: "en" },
    ]);
  });

  it("answers the track untranslated when translate_to is its own language, and never asks tlang of it", async () => {
    const { data, response } = await transcript({ video: surfaceGo, translate_to: "en-GB" });
    expect(response.status).toBe(200);
    expect(data?.data).toMatchObject({ language: "en", caption_kind: "manual" });
    expect(data?.data).not.toHaveProperty("source_language");
    expect(tlangsAskedOf(surfaceGo).filter((asked) => asked.tlang?.startsWith("en"))).toEqual([]);
  });

  it("translates the rows of a batch, each row failing on its own when its track cannot be translated", async () => {
    const { data, error, response } = await yt.server.client.POST("/transcripts/batch", {
      body: { video_ids: [surfaceGo, untranslatable], translate_to: "de" },
    });
    expect(response.status, JSON.stringify(error)).toBe(200);
    const [translated, refused] = data?.data.results ?? [];
    expect(translated).toMatchObject({ outcome: "ok", language: "de", source_language: "en", caption_kind: "auto" });
    expect(translated && "segments" in translated ? translated.segments : null).toEqual(germanSegments);
    expect(refused).toMatchObject({
      outcome: "error",
      error: { code: "translation_unavailable", number: 4107, retry_with: { translate_to: [] } },
    });
    expect(data?.usage.credits_spent).toBe(1);
  });
});

describe("422: translation_unavailable names the languages that exist", () => {
  it("refuses a track YouTube does not translate, with an empty list, free", async () => {
    const before = await yt.balance();
    const { error, response } = await transcript({ video: untranslatable, translate_to: "de" });
    expect(response.status, JSON.stringify(error)).toBe(422);
    expect(error?.error).toMatchObject({
      code: "translation_unavailable",
      number: 4107,
      retry_with: { translate_to: [] },
    });
    expect(await yt.balance()).toBe(before);
    expect(tlangsAskedOf(untranslatable)).toEqual([]);
  });

  it("refuses a language YouTube does not offer, listing those it does", async () => {
    const before = await yt.balance();
    const { error, response } = await transcript({ video: surfaceGo, translate_to: "sw" });
    expect(response.status).toBe(422);
    expect(error?.error).toMatchObject({
      code: "translation_unavailable",
      retry_with: { translate_to: englishTargets },
    });
    expect(error?.error.message).toMatch(/into sw/);
    expect(await yt.balance()).toBe(before);
    expect(tlangsAskedOf(surfaceGo).map((asked) => asked.tlang)).not.toContain("sw");
  });

  it("refuses a video without captions: only captions can be translated", async () => {
    const { error, response } = await transcript({ video: captionsDisabled, translate_to: "de" });
    expect(response.status).toBe(422);
    expect(error?.error).toMatchObject({ code: "translation_unavailable", retry_with: { translate_to: [] } });
    expect(error?.error.message).toMatch(/only captions can be translated/i);
  });

  it("refuses speech recognition (mode audio): it cannot be translated", async () => {
    const { error, response } = await transcript({ video: surfaceGo, mode: "audio", translate_to: "de" });
    expect(response.status).toBe(422);
    expect(error?.error).toMatchObject({ code: "translation_unavailable", retry_with: { translate_to: [] } });
  });
});
