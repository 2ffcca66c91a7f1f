import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { audioFixture } from "@verbatim/testkit/fake-podcast-host";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createSpeechEngine } from "../../src/adapters/asr/index.ts";
import { OpenAiCompatibleSpeechEngine } from "../../src/adapters/asr/openai-compatible-speech-engine.ts";
import { SherpaOnnxSpeechEngine } from "../../src/adapters/asr/sherpa-onnx-speech-engine.ts";
import { transcribeMedia } from "../../src/adapters/asr/speech-engine.ts";
import { SAMPLE_RATE } from "../../src/adapters/media/decoder.ts";
import { speechEngineConfigFrom } from "../../src/config.ts";
import { toApiError } from "../../src/services/failures/source-failures.ts";

/** A call's failure as the API answers it. */
function answered<T>(call: Promise<T>): Promise<T> {
  return call.catch((error: unknown) => {
    throw toApiError(error);
  });
}

/** What the fake server saw of one transcription request. */
interface ReceivedRequest {
  path: string;
  authorization: string | undefined;
  fields: Record<string, string>;
  file: { name: string; type: string; bytes: Buffer };
}

type Answer = (request: ReceivedRequest, index: number, res: ServerResponse) => void;

/** A loopback OpenAI-compatible transcription server that records requests and answers as told. */
class FakeTranscriptionServer {
  readonly received: ReceivedRequest[] = [];
  answer: Answer = () => {};
  private server: Server | undefined;
  url = "";

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server?.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // whisper.cpp's server, for one, has no `/v1/models`: anything but a transcription is a 404.
    if (req.method !== "POST") return void json(res, 404, { error: "not found" });
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    // Node's own multipart parser (undici's Response.formData) reads the body the client built.
    const form = await new Response(Buffer.concat(chunks), {
      headers: { "content-type": req.headers["content-type"] ?? "" },
    }).formData();
    const fields: Record<string, string> = {};
    let file: ReceivedRequest["file"] | undefined;
    for (const [name, value] of form.entries()) {
      if (typeof value === "string") fields[name] = value;
      else file = { name: value.name, type: value.type, bytes: Buffer.from(await value.arrayBuffer()) };
    }
    const request = {
      path: req.url ?? "",
      authorization: req.headers.authorization,
      fields,
      file: file ?? expect.fail("no file"),
    };
    this.received.push(request);
    this.answer(request, this.received.length - 1, res);
  }
}

/** Seconds of audio in a 16-bit 16 kHz mono WAV upload, read from its header. */
function wavSeconds(bytes: Buffer): number {
  expect(bytes.toString("ascii", 0, 4)).toBe("RIFF");
  expect(bytes.toString("ascii", 8, 12)).toBe("WAVE");
  expect(bytes.readUInt32LE(24)).toBe(SAMPLE_RATE);
  const dataBytes = bytes.readUInt32LE(40);
  expect(dataBytes).toBe(bytes.length - 44);
  return dataBytes / 2 / SAMPLE_RATE;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

async function* secondsOfTone(seconds: number): AsyncGenerator<Float32Array> {
  const samples = new Float32Array(seconds * SAMPLE_RATE);
  for (let i = 0; i < samples.length; i++) samples[i] = 0.5 * Math.sin((2 * Math.PI * 440 * i) / SAMPLE_RATE);
  yield samples;
}

describe("OpenAiCompatibleSpeechEngine against a loopback server", () => {
  const server = new FakeTranscriptionServer();

  beforeAll(() => server.start());
  afterAll(() => server.stop());
  afterEach(() => {
    server.received.length = 0;
  });

  it("posts the audio as multipart with the model, verbose_json and segment timestamps, and reads the segments", async () => {
    server.answer = (_request, _index, res) =>
      json(res, 200, {
        task: "transcribe",
        language: "english",
        duration: 11,
        text: "And so, my fellow Americans, ask not what your country can do for you.",
        segments: [
          { id: 0, start: 0, end: 4.2, text: " And so, my fellow Americans," },
          { id: 1, start: 4.2, end: 8.4, text: " ask not what your country can do for you." },
        ],
      });
    const engine = new OpenAiCompatibleSpeechEngine({
      baseUrl: `${server.url}/`,
      model: "whisper-large-v3",
      apiKey: "sk-test",
    });
    const transcript = await transcribeMedia(engine, audioFixture("whisper-cpp/jfk.wav"));

    expect(server.received).toHaveLength(1);
    const [request] = server.received;
    expect(request?.path).toBe("/v1/audio/transcriptions");
    expect(request?.authorization).toBe("Bearer sk-test");
    expect(request?.fields).toEqual({
      model: "whisper-large-v3",
      response_format: "verbose_json",
      "timestamp_granularities[]": "segment",
    });
    expect(request?.file.type).toBe("audio/wav");
    expect(wavSeconds(request?.file.bytes ?? Buffer.alloc(0))).toBeCloseTo(11, 1);
    expect(transcript.info).toEqual({ engine: "openai", model: "whisper-large-v3", language: null, decoding: null });
    expect(transcript.segments).toEqual([
      { start: 0, duration: 4.2, text: "And so, my fellow Americans," },
      { start: 4.2, duration: 4.2, text: "ask not what your country can do for you." },
    ]);
  });

  it("cuts long audio into chunks under the size limit and shifts each chunk's segments by its offset", async () => {
    server.answer = (request, index, res) =>
      json(res, 200, {
        text: `chunk ${index}`,
        segments: [{ start: 0.5, end: Math.min(1.5, wavSeconds(request.file.bytes)), text: `chunk ${index}` }],
      });
    const maxChunkBytes = 44 + 4 * SAMPLE_RATE * 2; // 4 s of 16-bit audio
    const engine = new OpenAiCompatibleSpeechEngine({ baseUrl: server.url, model: "whisper-1", maxChunkBytes });
    const progress: number[] = [];
    const transcript = await transcribeMedia(engine, audioFixture("whisper-cpp/jfk.wav"), {
      onProgress: (seconds) => progress.push(seconds),
    });

    const uploads = server.received.map((request) => request.file.bytes);
    expect(uploads.every((bytes) => bytes.length <= maxChunkBytes)).toBe(true);
    expect(uploads.map(wavSeconds)).toEqual([4, 4, 3]);
    expect(transcript.segments.map((segment) => segment.start)).toEqual([0.5, 4.5, 8.5]);
    expect(transcript.segments.map((segment) => segment.text)).toEqual(["chunk 0", "chunk 1", "chunk 2"]);
    expect(progress).toEqual([4, 8, 11]);
    expect(transcript.duration).toBe(11);
  });

  it("fails with upstream_error when the server answers 500", async () => {
    server.answer = (_request, _index, res) => json(res, 500, { error: { message: "model crashed" } });
    const engine = new OpenAiCompatibleSpeechEngine({ baseUrl: server.url, model: "whisper-1" });
    await expect(answered(engine.transcribe(secondsOfTone(1)))).rejects.toMatchObject({
      code: "upstream_error",
      status: 503,
      message: expect.stringContaining("500"),
    });
  });

  it("fails with timeout when the server never answers", async () => {
    server.answer = () => {};
    const engine = new OpenAiCompatibleSpeechEngine({ baseUrl: server.url, model: "whisper-1", timeoutMs: 300 });
    await expect(answered(engine.transcribe(secondsOfTone(1)))).rejects.toMatchObject({
      code: "timeout",
      number: 5002,
    });
  });

  it("fails with parse_error when the answer is not JSON", async () => {
    server.answer = (_request, _index, res) => res.writeHead(200, { "content-type": "text/html" }).end("<html>");
    const engine = new OpenAiCompatibleSpeechEngine({ baseUrl: server.url, model: "whisper-1" });
    await expect(answered(engine.transcribe(secondsOfTone(1)))).rejects.toMatchObject({ code: "parse_error" });
  });

  it("fails with connection when nothing listens, in transcribe and in check", async () => {
    const closed = new FakeTranscriptionServer();
    await closed.start();
    await closed.stop();
    const engine = new OpenAiCompatibleSpeechEngine({ baseUrl: closed.url, model: "whisper-1" });
    await expect(answered(engine.transcribe(secondsOfTone(1)))).rejects.toMatchObject({
      code: "connection",
      number: 5003,
    });
    await expect(answered(engine.check())).rejects.toMatchObject({ code: "connection" });
  });

  it("passes check when the server answers at all, even 404", async () => {
    await expect(
      new OpenAiCompatibleSpeechEngine({ baseUrl: server.url, model: "whisper-1" }).check(),
    ).resolves.toBeUndefined();
  });
});

describe("createSpeechEngine", () => {
  it("builds the in-process engine with the shipped model by default", () => {
    const engine = createSpeechEngine(speechEngineConfigFrom({}));
    expect(engine).toBeInstanceOf(SherpaOnnxSpeechEngine);
    expect(engine.info.model).toBe("zipformer-gigaspeech-3.3M");
  });

  it("builds the OpenAI-compatible client from VERBATIM_ASR_URL and VERBATIM_ASR_MODEL", () => {
    const engine = createSpeechEngine(
      speechEngineConfigFrom({
        VERBATIM_ASR_ENGINE: "openai",
        VERBATIM_ASR_URL: "http://whisper.internal:8080",
        VERBATIM_ASR_MODEL: "large-v3",
      }),
    );
    expect(engine).toBeInstanceOf(OpenAiCompatibleSpeechEngine);
    expect(engine.info).toEqual({ engine: "openai", model: "large-v3", language: null, decoding: null });
  });

  it("refuses an unknown engine and an openai engine without a URL", () => {
    expect(() => createSpeechEngine(speechEngineConfigFrom({ VERBATIM_ASR_ENGINE: "vosk" }))).toThrow(
      /sherpa-onnx or openai/,
    );
    expect(() => createSpeechEngine(speechEngineConfigFrom({ VERBATIM_ASR_ENGINE: "openai" }))).toThrow(
      /VERBATIM_ASR_URL/,
    );
  });
});
