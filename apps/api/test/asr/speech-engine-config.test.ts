import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnVerbatim } from "@verbatim/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSpeechEngine } from "../../src/adapters/asr/index.ts";
import { SherpaOnnxSpeechEngine } from "../../src/adapters/asr/sherpa-onnx-speech-engine.ts";
import { sherpaDecodingFrom, speechEngineConfigFrom } from "../../src/config.ts";
import { TranscriptStore } from "../../src/services/kept/transcript-store.ts";
import { apiPackage } from "../support/api-package.ts";

describe("VERBATIM_ASR_DECODING and VERBATIM_ASR_ACTIVE_PATHS", () => {
  it("default to beam search over 4 paths, the setting bench/asr.ts chose", () => {
    expect(sherpaDecodingFrom({})).toEqual({ method: "modified_beam_search", activePaths: 4 });
    expect(createSpeechEngine(speechEngineConfigFrom({})).info.decoding).toBe("modified_beam_search/4");
  });

  it("select greedy search, or beam search with the paths given", () => {
    expect(sherpaDecodingFrom({ VERBATIM_ASR_DECODING: "greedy_search" })).toEqual({ method: "greedy_search" });
    expect(
      sherpaDecodingFrom({ VERBATIM_ASR_DECODING: "modified_beam_search", VERBATIM_ASR_ACTIVE_PATHS: "8" }),
    ).toEqual({ method: "modified_beam_search", activePaths: 8 });
    expect(sherpaDecodingFrom({ VERBATIM_ASR_ACTIVE_PATHS: "2" })).toEqual({
      method: "modified_beam_search",
      activePaths: 2,
    });
  });

  it("name the decoding in the engine's info, which transcripts carry", () => {
    expect(createSpeechEngine(speechEngineConfigFrom({ VERBATIM_ASR_DECODING: "greedy_search" })).info).toEqual({
      engine: "sherpa-onnx",
      model: "zipformer-gigaspeech-3.3M",
      language: "en",
      decoding: "greedy_search",
    });
    expect(createSpeechEngine(speechEngineConfigFrom({ VERBATIM_ASR_ACTIVE_PATHS: "16" })).info.decoding).toBe(
      "modified_beam_search/16",
    );
  });

  it("refuse an unknown method, naming the variable and the choices", () => {
    expect(() => sherpaDecodingFrom({ VERBATIM_ASR_DECODING: "beam" })).toThrow(
      'VERBATIM_ASR_DECODING must be greedy_search or modified_beam_search, not "beam".',
    );
  });

  it.each(["0", "-1", "2.5", "four", "1e1", "4 paths"])("refuse %j active paths", (paths) => {
    expect(() => sherpaDecodingFrom({ VERBATIM_ASR_ACTIVE_PATHS: paths })).toThrow(
      `VERBATIM_ASR_ACTIVE_PATHS must be a positive integer, not ${JSON.stringify(paths)}.`,
    );
  });

  it("refuse active paths with greedy search, where they would do nothing", () => {
    expect(() =>
      sherpaDecodingFrom({ VERBATIM_ASR_DECODING: "greedy_search", VERBATIM_ASR_ACTIVE_PATHS: "4" }),
    ).toThrow(/VERBATIM_ASR_ACTIVE_PATHS applies to VERBATIM_ASR_DECODING=modified_beam_search only/);
  });

  it("leave the OpenAI-compatible engine alone: its server decides how it decodes", () => {
    const engine = createSpeechEngine(
      speechEngineConfigFrom({
        VERBATIM_ASR_ENGINE: "openai",
        VERBATIM_ASR_URL: "http://whisper.internal:8080",
        VERBATIM_ASR_DECODING: "greedy_search",
      }),
    );
    expect(engine.info.decoding).toBeNull();
  });

  it("are checked by the engine itself too, for callers that build it directly", () => {
    expect(() => new SherpaOnnxSpeechEngine(undefined, { method: "modified_beam_search", activePaths: 0 })).toThrow(
      /positive whole number of active paths/,
    );
  });
});

describe("kept speech transcripts", () => {
  it("are found by engine and model, whichever decoding made them", () => {
    const greedy = createSpeechEngine(speechEngineConfigFrom({ VERBATIM_ASR_DECODING: "greedy_search" })).info;
    const beam = createSpeechEngine(speechEngineConfigFrom({ VERBATIM_ASR_ACTIVE_PATHS: "8" })).info;
    expect(TranscriptStore.speechModelOf(greedy)).toBe(TranscriptStore.speechModelOf(beam));
    expect(TranscriptStore.speechModelOf(greedy)).not.toBe(
      TranscriptStore.speechModelOf({ ...greedy, model: "other" }),
    );
  });
});

describe("a bad speech setting at start-up", () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "verbatim-asr-config-"));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it("stops the process with one line on stderr naming the variable, before the store opens", async () => {
    const { process: child } = spawnVerbatim(apiPackage, {
      DATABASE_URL: "",
      VERBATIM_DATA_DIR: dataDir,
      PORT: "0",
      VERBATIM_ASR_DECODING: "modified_beam_search",
      VERBATIM_ASR_ACTIVE_PATHS: "0",
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code, stderr).toBe(1);
    expect(stderr).toBe('verbatim: VERBATIM_ASR_ACTIVE_PATHS must be a positive integer, not "0".\n');
    expect(await readdir(dataDir)).toEqual([]);
  });
});
