import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { audioFixture } from "@verbatim/testkit/fake-podcast-host";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findTransducerModelFiles, SherpaOnnxSpeechEngine } from "../../src/adapters/asr/sherpa-onnx-speech-engine.ts";
import { type SpeechTranscript, transcribeMedia } from "../../src/adapters/asr/speech-engine.ts";
import { probeDuration } from "../../src/adapters/media/decoder.ts";
import { toApiError } from "../../src/services/failures/source-failures.ts";
import { transcriptWordBreaches } from "../support/word-rules.ts";
import { type GeneratedMedia, generatedMedia, JFK_REFERENCE, JFK_WER_LIMIT } from "./generated-media.ts";
import { wordErrorRate } from "./word-error-rate.ts";

const textOf = (transcript: SpeechTranscript) => transcript.segments.map((segment) => segment.text).join(" ");

describe("SherpaOnnxSpeechEngine with the shipped model", () => {
  const engine = new SherpaOnnxSpeechEngine();

  it("names the engine and the model it uses", async () => {
    await engine.check();
    expect(engine.info).toEqual({
      engine: "sherpa-onnx",
      model: "zipformer-gigaspeech-3.3M",
      language: "en",
      decoding: "modified_beam_search/4",
    });
  });

  describe.each(["whisper-cpp/jfk.wav", "whisper-cpp/jfk.mp3", "openai-whisper/jfk.flac"])("on %s", (fixture) => {
    let transcript: SpeechTranscript;
    let mediaSeconds: number;
    const progress: number[] = [];

    beforeAll(async () => {
      mediaSeconds = (await probeDuration(audioFixture(fixture))) ?? Number.NaN;
      transcript = await transcribeMedia(engine, audioFixture(fixture), {
        onProgress: (seconds) => progress.push(seconds),
      });
    });

    it("recognises the speech within the measured word error rate, key phrase included", () => {
      const text = textOf(transcript);
      expect(wordErrorRate(JFK_REFERENCE, text), text).toBeLessThanOrEqual(JFK_WER_LIMIT);
      expect(text).toContain("what you can do for your country");
    });

    it("gives monotonic segments and words inside the media's duration", () => {
      expect(transcript.duration).toBeCloseTo(mediaSeconds, 0);
      let previousEnd = 0;
      for (const segment of transcript.segments) {
        expect(segment.start).toBeGreaterThanOrEqual(previousEnd);
        expect(segment.duration).toBeGreaterThan(0);
        previousEnd = segment.start + segment.duration;
        expect(previousEnd).toBeLessThanOrEqual(mediaSeconds);
        for (const word of segment.words ?? []) {
          expect(word.duration).toBeGreaterThanOrEqual(0);
          expect(word.start).toBeGreaterThanOrEqual(segment.start);
          expect(word.start + word.duration).toBeLessThanOrEqual(previousEnd + 1e-9);
        }
      }
    });

    it("reports progress in rising seconds up to the whole duration", () => {
      expect(progress.length).toBeGreaterThan(1);
      expect(progress).toEqual([...progress].sort((a, b) => a - b));
      expect(progress.at(-1)).toBeCloseTo(transcript.duration, 5);
    });
  });

  it("decodes as configured: greedy search on jfk.wav makes the errors beam search avoids", async () => {
    const greedy = new SherpaOnnxSpeechEngine(undefined, { method: "greedy_search" });
    const text = textOf(await transcribeMedia(greedy, audioFixture("whisper-cpp/jfk.wav")));
    expect(greedy.info.decoding).toBe("greedy_search");
    expect(wordErrorRate(JFK_REFERENCE, text), text).toBeGreaterThan(JFK_WER_LIMIT);
  });

  it("times words where they are spoken: 'americans' starts within 0.6 s of 1.8 s in jfk.flac", async () => {
    // openai/whisper's own test checks this timing on the same file.
    const transcript = await transcribeMedia(engine, audioFixture("openai-whisper/jfk.flac"));
    const words = transcript.segments.flatMap((segment) => segment.words ?? []);
    const americans = words.find((word) => word.text.startsWith("american"));
    expect(americans, JSON.stringify(words)).toBeDefined();
    expect(americans?.start).toBeGreaterThan(1.2);
    expect(americans?.start).toBeLessThan(2.4);
  });

  it("times 'country' in jfk.wav within 0.3 s of where it is spoken, both times", async () => {
    // whisper.cpp's README gives the word boundaries of this recording (fixtures/audio/whisper-cpp/SOURCE.md in
    // the shared fixtures): "country" begins at 5.66 s and again at 10.02 s.
    const transcript = await transcribeMedia(engine, audioFixture("whisper-cpp/jfk.wav"));
    const words = transcript.segments.flatMap((segment) => segment.words ?? []);
    const country = words.filter((word) => word.text === "country");
    expect(country, JSON.stringify(words)).toHaveLength(2);
    expect(Math.abs((country[0]?.start ?? 0) - 5.66), JSON.stringify(country)).toBeLessThan(0.3);
    expect(Math.abs((country[1]?.start ?? 0) - 10.02), JSON.stringify(country)).toBeLessThan(0.3);
  });

  it("gives words that spell each segment's text, in order and inside it", async () => {
    const transcript = await transcribeMedia(engine, audioFixture("whisper-cpp/jfk.wav"));
    expect(transcript.segments.length).toBeGreaterThan(0);
    expect(transcriptWordBreaches(transcript.segments)).toEqual([]);
  });

  describe("on silence and bad input", () => {
    let media: GeneratedMedia;

    beforeAll(async () => {
      media = await generatedMedia();
    });
    afterAll(() => media.remove());

    it("finds no words in 5 s of silence", async () => {
      const silence = await media.make("silence.wav", ["-f", "lavfi", "-i", "anullsrc=r=16000:cl=mono", "-t", "5"]);
      const transcript = await transcribeMedia(engine, silence);
      expect(transcript.segments).toEqual([]);
      expect(transcript.duration).toBeCloseTo(5, 1);
    });

    it("rejects a video without sound as no_audio_stream", async () => {
      const videoOnly = await media.make("video-only.mp4", [
        "-f",
        "lavfi",
        "-i",
        "color=c=blue:s=64x64:d=1",
        "-c:v",
        "mpeg4",
      ]);
      const error = await transcribeMedia(engine, videoOnly).then(
        () => null,
        (reason: unknown) => reason,
      );
      expect(toApiError(error)).toMatchObject({ code: "no_audio_stream", number: 4106 });
    });

    it("stops with the abort reason when the job is cancelled", async () => {
      const controller = new AbortController();
      const reason = new Error("job cancelled");
      const transcribing = transcribeMedia(engine, audioFixture("whisper-cpp/jfk.wav"), {
        signal: controller.signal,
        onProgress: () => controller.abort(reason),
      });
      await expect(transcribing).rejects.toBe(reason);
    });
  });
});

describe("findTransducerModelFiles", () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "verbatim-model-"));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("finds upstream-named files and prefers the int8 ones", async () => {
    for (const name of [
      "encoder-epoch-99-avg-1-chunk-16-left-128.onnx",
      "encoder-epoch-99-avg-1-chunk-16-left-128.int8.onnx",
      "decoder-epoch-99-avg-1-chunk-16-left-128.onnx",
      "joiner-epoch-99-avg-1-chunk-16-left-128.int8.onnx",
      "tokens.txt",
    ]) {
      await writeFile(join(dir, name), "");
    }
    expect(findTransducerModelFiles(dir)).toEqual({
      encoder: join(dir, "encoder-epoch-99-avg-1-chunk-16-left-128.int8.onnx"),
      decoder: join(dir, "decoder-epoch-99-avg-1-chunk-16-left-128.onnx"),
      joiner: join(dir, "joiner-epoch-99-avg-1-chunk-16-left-128.int8.onnx"),
      tokens: join(dir, "tokens.txt"),
    });
  });

  it("says what is missing from a directory that holds no transducer", () => {
    expect(() => findTransducerModelFiles(tmpdir())).toThrow(/tokens\.txt|encoder/);
    expect(() => findTransducerModelFiles(join(dir, "absent"))).toThrow(/cannot be read/);
  });
});
