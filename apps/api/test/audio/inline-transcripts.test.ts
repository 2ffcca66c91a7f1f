import { audioFixture } from "@verbatim/testkit/fake-podcast-host";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type GeneratedMedia, generatedMedia, JFK_REFERENCE, JFK_WER_LIMIT } from "../asr/generated-media.ts";
import { wordErrorRate } from "../asr/word-error-rate.ts";
import { ledgerOf } from "../platform/helpers.ts";
import { expectErrorEnvelope } from "../support/http.ts";
import { casesOnThisEngine } from "../support/store.ts";
import { type AudioServer, startAudioServer } from "./harness.ts";
import { encryptedM4a, fiveHourFlac } from "./problem-media.ts";
import { fetchTranscript, type Loose } from "./requests.ts";

const fixtures = [
  { name: "jfk.wav", path: "whisper-cpp/jfk.wav", type: "audio/wav" },
  { name: "jfk.mp3", path: "whisper-cpp/jfk.mp3", type: "audio/mpeg" },
  { name: "jfk.flac", path: "openai-whisper/jfk.flac", type: "audio/flac" },
];

describe("POST /transcripts/video with short media: transcribed within the request (inline 30 s)", () => {
  let server: AudioServer;
  let media: GeneratedMedia;

  beforeAll(async () => {
    server = await startAudioServer({ inlineAudioSeconds: 30, workers: 0 });
    media = await generatedMedia();
    for (const fixture of fixtures)
      server.host.serveFile(`/media/${fixture.name}`, audioFixture(fixture.path), fixture.type);
  });
  afterAll(async () => {
    await server?.close();
    await media?.remove();
  });

  describe.each(casesOnThisEngine(fixtures))("200 for $name", (fixture) => {
    let answer: Awaited<ReturnType<typeof fetchTranscript>>;
    let balanceBefore: number | null;

    beforeAll(async () => {
      balanceBefore = await server.platform.credits.balance(server.account.id);
      answer = await fetchTranscript(server, { video: server.host.url(`/media/${fixture.name}`) });
    });

    it("answers the transcript with segments, WER within the measured limit and the key phrase", () => {
      expect(answer.status, answer.text).toBe(200);
      const body = answer.body as Loose;
      const text = (body.data.segments as Array<{ text: string }>).map((segment) => segment.text).join(" ");
      const wer = wordErrorRate(JFK_REFERENCE, text);
      console.info(`inline ${fixture.name}: WER ${(wer * 100).toFixed(1)} % "${text}"`);
      expect(wer, text).toBeLessThanOrEqual(JFK_WER_LIMIT);
      expect(text).toContain("what you can do for your country");
      expect(body.data.text).toBeUndefined();
    });

    it("says where the words came from: speech recognition by the shipped model, in English, from a file", () => {
      const data = (answer.body as Loose).data;
      expect(data).toMatchObject({
        kind: "transcript",
        video_id: expect.stringMatching(/^file_[0-9a-f]{16}$/),
        url: server.host.url(`/media/${fixture.name}`),
        platform: "file",
        title: fixture.name,
        source: "audio",
        caption_kind: null,
        language: "en",
        speakers: null,
        speech_engine: {
          engine: "sherpa-onnx",
          model: "zipformer-gigaspeech-3.3M",
          decoding: "modified_beam_search/4",
        },
      });
      expect(data.duration).toBeCloseTo(11, 0);
      expect(data.podcast).toBeUndefined();
    });

    it("charges 1 credit, once: 11 s is one started minute", async () => {
      const body = answer.body as Loose;
      expect(body.usage).toEqual({
        credits_spent: 1,
        balance: (balanceBefore ?? 0) - 1,
        bytes: expect.any(Number),
      });
      const charges = (await ledgerOf(server.store, server.account.id)).filter(
        (row) => row.request_id === body.request_id,
      );
      expect(charges).toEqual([
        expect.objectContaining({ delta: -1, kind: "charge", operation: "POST /transcripts/video" }),
      ]);
    });
  });

  it("returns the joined text when timestamps is false, served from the store and charged again", async () => {
    const before = await server.platform.credits.balance(server.account.id);
    const mediaRequestsBefore = server.host.requestsTo("/media/jfk.wav").length;
    const answer = await fetchTranscript(server, { video: server.host.url("/media/jfk.wav"), timestamps: false });
    expect(answer.status, answer.text).toBe(200);
    const body = answer.body as Loose;
    expect(body.data.segments).toBeUndefined();
    expect(body.data.text).toContain("what you can do for your country");
    expect(body.usage).toEqual({
      credits_spent: 1,
      balance: (before ?? 0) - 1,
      bytes: Buffer.byteLength(body.data.text),
    });
    // Resolving the address looks at it once and a HEAD confirms the media still answers; nothing downloaded it again.
    const mediaRequests = server.host.requestsTo("/media/jfk.wav").slice(mediaRequestsBefore);
    expect(mediaRequests.map((media) => media.method)).toEqual(["GET", "HEAD"]);
  });

  it("makes no job for inline transcripts", async () => {
    const [row] = await server.store.query<{ jobs: number }>(sql`select count(*)::int as jobs from transcript_jobs`);
    expect(row?.jobs).toBe(0);
  });

  describe("422 for media that cannot be transcribed, charging nothing", () => {
    it("no_speech (4105) for 5 s of silence", async () => {
      const path = await media.make("silence.wav", ["-f", "lavfi", "-i", "anullsrc=r=16000:cl=mono", "-t", "5"]);
      server.host.serveFile("/media/silence.wav", path, "audio/wav");
      await expectRefusedFreeOfCharge(server, "/media/silence.wav", "no_speech");
    });

    it("no_audio_stream (4106) for a video without sound", async () => {
      const path = await media.make("picture.mp4", [
        "-f",
        "lavfi",
        "-i",
        "testsrc=size=64x64:rate=5",
        "-t",
        "1",
        "-c:v",
        "mpeg4",
      ]);
      server.host.serveFile("/media/picture.mp4", path, "video/mp4");
      await expectRefusedFreeOfCharge(server, "/media/picture.mp4", "no_audio_stream");
    });

    it("audio_too_long (3006) for media that declares five hours", async () => {
      server.host.serveFile("/media/five-hours.flac", await fiveHourFlac(media), "audio/flac");
      await expectRefusedFreeOfCharge(server, "/media/five-hours.flac", "audio_too_long");
    });

    it("drm_protected (3007) for Common Encryption (cenc) audio", async () => {
      server.host.serveFile("/media/encrypted.m4a", await encryptedM4a(media), "audio/mp4");
      await expectRefusedFreeOfCharge(server, "/media/encrypted.m4a", "drm_protected");
    });

    it("invalid_input (3005) for bytes that are not media", async () => {
      server.host.serve("/media/noise.mp3", {
        body: Buffer.from("not audio at all ".repeat(100)),
        contentType: "audio/mpeg",
      });
      await expectRefusedFreeOfCharge(server, "/media/noise.mp3", "invalid_input");
    });
  });

  it("sends media too large to last under 30 s straight to a job, reading only its headers in the request", async () => {
    // 200 s of 48 kHz stereo PCM: 38 MB, past 30 s even at 576 kB/s, the richest audio rate.
    const path = await media.make("long.wav", ["-f", "lavfi", "-i", "anullsrc=r=48000:cl=stereo", "-t", "200"]);
    server.host.serveFile("/media/long.wav", path, "audio/wav");
    const answer = await fetchTranscript(server, { video: server.host.url("/media/long.wav") });
    expect(answer.status, answer.text).toBe(202);
    expect(server.host.requestsTo("/media/long.wav")).toHaveLength(1);
  });
});

async function expectRefusedFreeOfCharge(
  server: AudioServer,
  path: string,
  code: "no_speech" | "no_audio_stream" | "audio_too_long" | "drm_protected" | "invalid_input",
) {
  const before = await ledgerOf(server.store, server.account.id);
  const answer = await fetchTranscript(server, { video: server.host.url(path) });
  expectErrorEnvelope(answer, 422, code);
  expect(await ledgerOf(server.store, server.account.id)).toEqual(before);
}
