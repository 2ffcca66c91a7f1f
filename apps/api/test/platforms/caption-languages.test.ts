import { audioFixture } from "@verbatim/testkit/fake-podcast-host";
import { type PlatformDouble, startPlatformDouble } from "@verbatim/testkit/platform-double";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AudioServer, startAudioServer } from "../audio/harness.ts";
import { fetchTranscript, type Loose } from "../audio/requests.ts";
import { send } from "../support/http.ts";

// POST /transcripts/languages and translate_to beyond YouTube: the platforms through the real
// yt-dlp and the platform double (TikTok's `translated` item lists its speech recognition in
// English and its machine translation into German, packages/testkit/fixtures/platforms/tiktok/SOURCE.md),
// a podcast feed's publisher transcripts, and a media file.
const tiktokCaptions = "https://www.tiktok.com/@verbatim.tests/video/7400000000000000001";
const tiktokTranslated = "https://www.tiktok.com/@verbatim.tests/video/7400000000000000008";
const germanFile = "verbatim-7400000000000000008/deu-DE.webvtt";
const feedPath = "/feeds/transcript-formats.xml";

let double: PlatformDouble;
let server: AudioServer;

beforeAll(async () => {
  double = await startPlatformDouble();
  // The feed parser's first parse starts its worker; beside yt-dlp on a loaded machine that can pass the 10 s default.
  server = await startAudioServer({ platformDouble: double, credits: 100, workers: 0, parseDeadlineMs: 60_000 });
  const { host } = server;
  host.serveFixture(feedPath, "verbatim/transcript-formats.xml", "application/rss+xml; charset=utf-8", {
    replace: { "https://podcasts.example/": host.url("/") },
  });
  host.serveFixture("/transcripts/example.vtt", "podcast-namespace/example.vtt", "text/vtt");
  host.serveFile("/media/ep-plain.mp3", audioFixture("whisper-cpp/jfk.mp3"), "audio/mpeg");
}, 120_000);

afterAll(async () => {
  await server?.close();
  await double?.close();
});

function languages(video: string) {
  return send(server, { method: "POST", path: "/api/v2/transcripts/languages", json: { video } });
}

const balance = async () => server.platform.credits.balance(server.account.id);

/** How often the double served TikTok's German caption file. */
const germanDownloads = () => double.requests.filter((request) => request.url.includes(germanFile)).length;

describe("200: POST /transcripts/languages beyond YouTube, free", () => {
  it("lists a TikTok item's tracks: the original's targets are TikTok's translations of it", async () => {
    const before = await balance();
    const answer = await languages(tiktokTranslated);
    expect(answer.status, answer.text).toBe(200);
    const body = answer.body as Loose;
    expect(body.data).toEqual({
      kind: "caption_languages",
      video_id: "7400000000000000008",
      platform: "tiktok",
      languages: [
        {
          language: "en-US",
          name: null,
          kind: "auto",
          translatable: true,
          translation_targets: [{ language: "de-DE", name: null }],
        },
        { language: "de-DE", name: null, kind: "auto", translatable: false, translation_targets: [] },
      ],
    });
    expect(body.usage).toEqual({ credits_spent: 0, balance: before, bytes: 0 });
    expect(await balance()).toBe(before);
  });

  it("gives a platform track without translations translatable: false", async () => {
    const answer = await languages(tiktokCaptions);
    expect(answer.status, answer.text).toBe(200);
    expect((answer.body as Loose).data.languages).toEqual([
      { language: "en-US", name: null, kind: "auto", translatable: false, translation_targets: [] },
    ]);
  });

  it("lists the publisher transcript a podcast feed declares for its newest episode", async () => {
    const answer = await languages(server.host.url(feedPath));
    expect(answer.status, answer.text).toBe(200);
    const { data } = answer.body as Loose;
    expect(data).toMatchObject({ kind: "caption_languages", platform: "podcast" });
    expect(data.video_id).toMatch(/^pod_/);
    expect(data.languages).toEqual([
      { language: "en-US", name: null, kind: "publisher", translatable: false, translation_targets: [] },
    ]);
  });

  it("answers an empty list for a media file", async () => {
    const answer = await languages(server.host.url("/media/ep-plain.mp3"));
    expect(answer.status, answer.text).toBe(200);
    const { data } = answer.body as Loose;
    expect(data.languages).toEqual([]);
    expect(data.video_id).toMatch(/^(file|pod)_/);
  });
});

describe("200: translate_to on a platform serves its own translation", () => {
  it("answers TikTok's German track as the translation of its English one, for 1 credit", async () => {
    const before = (await balance()) as number;
    const answer = await fetchTranscript(server, { video: tiktokTranslated, translate_to: "de" });
    expect(answer.status, answer.text).toBe(200);
    const body = answer.body as Loose;
    expect(body.data).toMatchObject({
      platform: "tiktok",
      video_id: "7400000000000000008",
      language: "de-DE",
      source_language: "en-US",
      source: "captions",
      caption_kind: "auto",
    });
    expect(body.data.segments.map((segment: Loose) => segment.text).join(" ")).toMatch(
      /fragt nicht, was euer Land für euch tun kann/,
    );
    expect(body.usage.credits_spent).toBe(1);
    expect(await balance()).toBe(before - 1);
  });

  it("serves the stored translation again without reading the caption file twice", async () => {
    const downloads = germanDownloads();
    const answer = await fetchTranscript(server, { video: tiktokTranslated, translate_to: "de" });
    expect(answer.status, answer.text).toBe(200);
    expect((answer.body as Loose).data).toMatchObject({ language: "de-DE", source_language: "en-US" });
    expect(germanDownloads()).toBe(downloads);
  });

  it("answers the original track untranslated when translate_to is its language", async () => {
    const answer = await fetchTranscript(server, { video: tiktokTranslated, translate_to: "en" });
    expect(answer.status, answer.text).toBe(200);
    const { data } = answer.body as Loose;
    expect(data).toMatchObject({ language: "en-US", caption_kind: "auto" });
    expect(data).not.toHaveProperty("source_language");
    expect(data.segments.map((segment: Loose) => segment.text).join(" ")).toMatch(/what your country can do for you/);
  });
});

describe("422: translation_unavailable beyond YouTube", () => {
  it("names the translations TikTok has when asked for another language", async () => {
    const before = await balance();
    const answer = await fetchTranscript(server, { video: tiktokTranslated, translate_to: "fr" });
    expect(answer.status, answer.text).toBe(422);
    expect((answer.body as Loose).error).toMatchObject({
      code: "translation_unavailable",
      number: 4107,
      retry_with: { translate_to: ["de-DE"] },
    });
    expect(await balance()).toBe(before);
  });

  it("refuses a platform item whose track has no translation, with an empty list", async () => {
    const answer = await fetchTranscript(server, { video: tiktokCaptions, translate_to: "de" });
    expect(answer.status, answer.text).toBe(422);
    expect((answer.body as Loose).error).toMatchObject({
      code: "translation_unavailable",
      retry_with: { translate_to: [] },
    });
  });

  it.each([
    ["a podcast feed", feedPath],
    ["a media file", "/media/ep-plain.mp3"],
  ])("refuses %s: only captions can be translated", async (_label, path) => {
    const before = await balance();
    const answer = await fetchTranscript(server, { video: server.host.url(path), translate_to: "de" });
    expect(answer.status, answer.text).toBe(422);
    const { error } = answer.body as Loose;
    expect(error).toMatchObject({ code: "translation_unavailable", retry_with: { translate_to: [] } });
    expect(error.message).toMatch(/only captions can be translated/);
    expect(await balance()).toBe(before);
  });
});
