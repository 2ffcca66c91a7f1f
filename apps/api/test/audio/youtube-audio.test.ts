import { readFileSync } from "node:fs";
import { audioFixture } from "@verbatim/testkit/fake-podcast-host";
import { FakeYoutube, fixture, fromFixture, playerFromReelRecording } from "@verbatim/testkit/fake-youtube";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JFK_REFERENCE, JFK_WER_LIMIT } from "../asr/generated-media.ts";
import { wordErrorRate } from "../asr/word-error-rate.ts";
import { ledgerOf } from "../platform/helpers.ts";
import { expectErrorEnvelope } from "../support/http.ts";
import { type AudioServer, type AudioServerOptions, startAudioServer } from "./harness.ts";
import { expectJobAccepted, fetchTranscript, type Loose, pollUntilFinished } from "./requests.ts";

const surfaceGo = "GJLlxj_dtq8";
const captionsDisabled = "dsMFmonKDD4";
const sixHourStream = "Fjg5lYqvzUs";
const cipheredOnly = "ciphered___";
/** The lowest-bitrate audio stream of the recordings that is not a loudness-compressed copy. */
const lowestAudioItag = 139;
const jfkMp3 = readFileSync(audioFixture("whisper-cpp/jfk.mp3"));

/** A recorded player response whose streams only carry a signature cipher, as the WEB client's do. */
function cipheredPlayer(): string {
  const player = JSON.parse(fixture("youtube-transcript-api/youtube_transcripts_disabled.innertube.json.static"));
  for (const format of player.streamingData.adaptiveFormats) {
    format.signatureCipher = `s=${format.itag}&sp=sig&url=${encodeURIComponent(format.url)}`;
    delete format.url;
  }
  return JSON.stringify(player);
}

/** An audio server on a fake YouTube that plays the Surface Go recording, every audio stream being jfk.mp3. */
async function startWithFakeYoutube(options: AudioServerOptions): Promise<{ fake: FakeYoutube; server: AudioServer }> {
  const fake = await FakeYoutube.start();
  fake
    .player(surfaceGo, fromFixture("youtube-transcript-api/youtube.innertube.json.static"))
    .videoplayback(lowestAudioItag, jfkMp3);
  return { fake, server: await startAudioServer({ ...options, youtube: fake }) };
}

function expectSpeechTranscript(data: Loose, videoId: string): void {
  expect(data).toMatchObject({
    kind: "transcript",
    video_id: videoId,
    url: `https://www.youtube.com/watch?v=${videoId}`,
    platform: "youtube",
    source: "audio",
    caption_kind: null,
    language: "en",
    speech_engine: { engine: "sherpa-onnx", model: expect.any(String) },
  });
  expect(data.text).toContain("what you can do for your country");
  expect(wordErrorRate(JFK_REFERENCE, data.text)).toBeLessThanOrEqual(JFK_WER_LIMIT);
}

describe("speech recognition of YouTube videos, as jobs", () => {
  let fake: FakeYoutube;
  let server: AudioServer;

  beforeAll(async () => {
    ({ fake, server } = await startWithFakeYoutube({ credits: 100 }));
    fake
      .timedtext({ v: surfaceGo, lang: "en" }, fromFixture("authored/GJLlxj_dtq8.en.srv3.xml"))
      .player(
        captionsDisabled,
        fromFixture("youtube-transcript-api/youtube_transcripts_disabled.innertube.json.static"),
      )
      .player(sixHourStream, fromFixture("youtube-transcript-api/youtube_transcripts_disabled2.innertube.json.static"))
      .player(cipheredOnly, { body: cipheredPlayer() });
  });
  afterAll(() => Promise.all([server?.close(), fake?.close()]));

  const balance = () => server.platform.credits.balance(server.account.id);

  it("a media server refusing the stream fails the job with upstream_error (5001), charging nothing", async () => {
    fake.videoplayback(lowestAudioItag, Buffer.from("Forbidden"), { status: 403, contentType: "text/plain", times: 2 });
    const refusal = fake.requestsTo("/videoplayback").length;
    const before = await balance();
    const accepted = await fetchTranscript(server, { video: surfaceGo, mode: "audio" });
    const { answer } = await pollUntilFinished(
      server,
      expectJobAccepted(accepted, { platform: "youtube", balance: before, videoId: surfaceGo }),
    );
    expect(answer.body).toMatchObject({ ok: false, status: "failed", error: { code: "upstream_error", number: 5001 } });
    expect(fake.requestsTo("/videoplayback").length).toBeGreaterThan(refusal);
    expect(await balance()).toBe(before);
  });

  it("mode audio transcribes the audio even when captions exist, charged once on completion", async () => {
    const before = await balance();
    const captionReads = fake.requestsTo("/api/timedtext").length;
    const accepted = await fetchTranscript(server, { video: `https://youtu.be/${surfaceGo}`, mode: "audio" });
    const pollUrl = expectJobAccepted(accepted, { platform: "youtube", balance: before, videoId: surfaceGo });
    const { answer } = await pollUntilFinished(server, pollUrl);
    const body = answer.body as Loose;
    expect(body).toMatchObject({ ok: true, status: "completed", usage: { credits_spent: 1 } });
    expectSpeechTranscript(body.data, surfaceGo);
    expect(body.data.title).toBe("Surface Go Review - It’s Awesome");
    expect(fake.requestsTo("/api/timedtext").length).toBe(captionReads);
    const ranges = fake.requestsTo("/videoplayback").map((request) => request.query.get("range"));
    expect(ranges.at(-1)).toMatch(/^0-\d+$/);
    const charges = (await ledgerOf(server.store, server.account.id)).filter(
      (row) => row.request_id === (accepted.body as Loose).request_id,
    );
    expect(charges).toEqual([expect.objectContaining({ delta: -1 })]);
    expect(await balance()).toBe((before ?? 0) - 1);
  });

  it("the same video asked again is answered from the store, inline, without YouTube, and billed again", async () => {
    const before = await balance();
    const upstreamCalls = fake.requests.length;
    const answer = await fetchTranscript(server, { video: surfaceGo, mode: "audio", timestamps: false });
    expect(answer.status, answer.text).toBe(200);
    const body = answer.body as Loose;
    expectSpeechTranscript(body.data, surfaceGo);
    expect(body.data.segments).toBeUndefined();
    expect(body.usage).toMatchObject({ credits_spent: 1, balance: (before ?? 0) - 1 });
    expect(fake.requests.length).toBe(upstreamCalls);
  });

  it("auto on a video without captions falls back to speech recognition", async () => {
    const before = await balance();
    const accepted = await fetchTranscript(server, { video: captionsDisabled });
    const pollUrl = expectJobAccepted(accepted, { platform: "youtube", balance: before, videoId: captionsDisabled });
    const { answer } = await pollUntilFinished(server, pollUrl);
    expectSpeechTranscript((answer.body as Loose).data, captionsDisabled);
  });

  it("captions mode never transcribes audio: a video without captions stays captions_disabled (4104)", async () => {
    const streamReads = fake.requestsTo("/videoplayback").length;
    const answer = await fetchTranscript(server, { video: captionsDisabled, mode: "captions" });
    expectErrorEnvelope(answer, 422, "captions_disabled");
    expect((answer.body as Loose).error.retry_with).toEqual({ mode: "audio" });
    expect(fake.requestsTo("/videoplayback").length).toBe(streamReads);
  });

  it("auto on a video with captions returns them, reading no audio", async () => {
    const streamReads = fake.requestsTo("/videoplayback").length;
    const answer = await fetchTranscript(server, { video: surfaceGo });
    expect(answer.status, answer.text).toBe(200);
    expect((answer.body as Loose).data).toMatchObject({ source: "captions", caption_kind: "manual" });
    expect(fake.requestsTo("/videoplayback").length).toBe(streamReads);
  });

  it("a video over four hours is audio_too_long (3006) before any download, charging nothing", async () => {
    const before = await balance();
    const streamReads = fake.requestsTo("/videoplayback").length;
    const answer = await fetchTranscript(server, { video: sixHourStream, mode: "audio" });
    expectErrorEnvelope(answer, 422, "audio_too_long");
    expect(fake.requestsTo("/videoplayback").length).toBe(streamReads);
    expect(await balance()).toBe(before);
  });

  it("a video whose streams all need the player script is upstream_error (5001), charging nothing", async () => {
    const before = await balance();
    const answer = await fetchTranscript(server, { video: cipheredOnly, mode: "audio" });
    expectErrorEnvelope(answer, 503, "upstream_error");
    expect((answer.body as Loose).error.message).toMatch(/player script/);
    expect(await balance()).toBe(before);
  });

  it("an upcoming live stream is live_stream (4101): it has no audio to read yet", async () => {
    fake.player("N-yVic7BbY0", fromFixture("invidious-mocks/video/scheduled_live_PBD-Podcast.player.json"));
    const answer = await fetchTranscript(server, { video: "N-yVic7BbY0", mode: "audio" });
    expectErrorEnvelope(answer, 422, "live_stream");
    expect((answer.body as Loose).error.retry_with).toEqual({ endpoint: "/api/v2/live" });
  });

  it("a private video is private (4001), as for captions, charging nothing", async () => {
    const before = await balance();
    fake.player(
      "8VajtrESJzA",
      playerFromReelRecording("stream/youtubestreamextractordefault/notavailable/privatecontent/generated_mock_1.json"),
    );
    const answer = await fetchTranscript(server, { video: "8VajtrESJzA", mode: "audio" });
    expectErrorEnvelope(answer, 422, "private");
    expect(await balance()).toBe(before);
  });
});

describe("speech recognition of YouTube videos, within the limits of every media download", () => {
  let fake: FakeYoutube;
  let server: AudioServer;

  beforeAll(async () => {
    ({ fake, server } = await startWithFakeYoutube({
      credits: 100,
      downloadFloor: { bytesPerSecond: 1_000, windowSeconds: 1 },
    }));
    // 100 bytes a second, its pauses far shorter than the chunk timeout: only the floor can end it.
    fake.videoplayback(lowestAudioItag, jfkMp3, { trickle: { pieceBytes: 10, intervalMs: 100 } });
  });
  afterAll(() => Promise.all([server?.close(), fake?.close()]));

  it("a stream trickling below VERBATIM_DOWNLOAD_MIN_BYTES_PER_SECOND fails the job with timeout (5002), as other media, charging nothing", async () => {
    const before = await server.platform.credits.balance(server.account.id);
    const accepted = await fetchTranscript(server, { video: surfaceGo, mode: "audio" });
    const { answer } = await pollUntilFinished(
      server,
      expectJobAccepted(accepted, { platform: "youtube", balance: before, videoId: surfaceGo }),
    );
    expect(answer.body, answer.text).toMatchObject({
      ok: false,
      status: "failed",
      error: {
        code: "timeout",
        number: 5002,
        message:
          "The audio stream came slower than 1000 bytes per second over 1 s (VERBATIM_DOWNLOAD_MIN_BYTES_PER_SECOND).",
      },
    });
    expect(await server.platform.credits.balance(server.account.id)).toBe(before);
  });
});

describe("speech recognition of YouTube videos, inline", () => {
  let fake: FakeYoutube;
  let server: AudioServer;

  beforeAll(async () => {
    // The recording declares 316 s; an inline limit above it lets the probe of the stream decide.
    ({ fake, server } = await startWithFakeYoutube({ credits: 100, inlineAudioSeconds: 400 }));
  });
  afterAll(() => Promise.all([server?.close(), fake?.close()]));

  it("the deprecated ai_fallback flag transcribes short audio within the request (200), 1 credit", async () => {
    const answer = await fetchTranscript(server, { video: surfaceGo, ai_fallback: true, timestamps: false });
    expect(answer.status, answer.text).toBe(200);
    const body = answer.body as Loose;
    expectSpeechTranscript(body.data, surfaceGo);
    expect(body.data.duration).toBeCloseTo(11, 0);
    expect(body.usage).toMatchObject({ credits_spent: 1, balance: 99 });
  });
});
