// `npx tsx bench/asr.ts`: the embedded speech engine under each decoding side by side: word error
// rate on every recorded fixture the tests use and on the fixtures joined into one file, real-time
// factor (wall and CPU) on those and on a 10-minute file looped from them, and peak memory.
// Each decoding runs in its own child process, one after another, so each peak RSS is its own and
// only one recognizer thread runs at a time. `VERBATIM_ASR_MODEL_DIR` benches another model.
// The goal (docs/performance.md): real-time factor 0.03 or better per worker, memory flat with duration.
import { execFile, fork } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { audioFixture } from "@verbatim/testkit/fake-podcast-host";
import {
  createSpeechEngine,
  type SpeechEngine,
  type SpeechTranscript,
  transcribeMedia,
} from "../src/adapters/asr/index.ts";
import { decodingName, type SherpaDecoding } from "../src/adapters/asr/sherpa-onnx-speech-engine.ts";
import { resolveFfmpegPath } from "../src/adapters/media/decoder.ts";
import { speechEngineConfigFrom } from "../src/config.ts";
import { JFK_REFERENCE } from "../test/asr/generated-media.ts";
import { wordErrorRate } from "../test/asr/word-error-rate.ts";
import { processCpuMs } from "./machine.ts";

const run = promisify(execFile);
/** Every recording the speech tests transcribe, with the words spoken in it. */
const FIXTURES = [
  { path: "whisper-cpp/jfk.wav", reference: JFK_REFERENCE },
  { path: "whisper-cpp/jfk.mp3", reference: JFK_REFERENCE },
  { path: "openai-whisper/jfk.flac", reference: JFK_REFERENCE },
];
const JOINED_REFERENCE = FIXTURES.map((fixture) => fixture.reference).join(" ");
const LOOPED_SECONDS = 600;
const SETTINGS: SherpaDecoding[] = [
  { method: "greedy_search" },
  { method: "modified_beam_search", activePaths: 2 },
  { method: "modified_beam_search", activePaths: 4 },
  { method: "modified_beam_search", activePaths: 8 },
  { method: "modified_beam_search", activePaths: 16 },
];
const MEBIBYTE = 1024 * 1024;

/** The files every setting transcribes besides the fixtures, made once by the parent. */
interface SharedMedia {
  joined: string;
  looped: string;
}

interface SettingResult {
  decoding: string;
  /** Word error rate per fixture, in FIXTURES' order. */
  fixtureWer: number[];
  fixtureTexts: string[];
  joinedWer: number;
  /** Wall and CPU time over audio time, over the fixtures and the joined file together. */
  clipsRtf: { wall: number; cpu: number };
  loopedRtf: { wall: number; cpu: number };
  loopedSegments: number;
  rssAfterLoadBytes: number;
  peakRssBytes: number;
}

async function ffmpeg(args: string[]): Promise<void> {
  await run(resolveFfmpegPath(), ["-hide_banner", "-nostdin", "-y", ...args]);
}

/** The fixtures one after another (each resampled to 16 kHz mono) as one WAV file, and that looped to `seconds`. */
async function sharedMedia(dir: string, seconds: number): Promise<SharedMedia> {
  const joined = join(dir, "joined.wav");
  const inputs = FIXTURES.flatMap((fixture) => ["-i", audioFixture(fixture.path)]);
  const labels = FIXTURES.map((_, index) => `[${index}:a]aresample=16000,aformat=channel_layouts=mono[a${index}]`);
  const concat = `${FIXTURES.map((_, index) => `[a${index}]`).join("")}concat=n=${FIXTURES.length}:v=0:a=1[mix]`;
  await ffmpeg([...inputs, "-filter_complex", `${labels.join(";")};${concat}`, "-map", "[mix]", joined]);
  const looped = join(dir, `looped-${seconds}s.wav`);
  await ffmpeg(["-stream_loop", "-1", "-i", joined, "-t", String(seconds), looped]);
  return { joined, looped };
}

/** Transcribes one file, timing it by the wall clock and by this process's CPU time. */
async function timed(engine: SpeechEngine, path: string) {
  const cpuBefore = processCpuMs();
  const started = performance.now();
  const transcript = await transcribeMedia(engine, path);
  return {
    transcript,
    wallSeconds: (performance.now() - started) / 1000,
    cpuSeconds: (processCpuMs() - cpuBefore) / 1000,
  };
}

const textOf = (transcript: SpeechTranscript) => transcript.segments.map((segment) => segment.text).join(" ");

/** One setting, in a child process: everything measured with one engine. */
async function measureSetting(decoding: SherpaDecoding, media: SharedMedia): Promise<SettingResult> {
  const engine = createSpeechEngine(
    speechEngineConfigFrom({
      ...process.env,
      VERBATIM_ASR_ENGINE: "sherpa-onnx",
      VERBATIM_ASR_DECODING: decoding.method,
      VERBATIM_ASR_ACTIVE_PATHS: decoding.method === "modified_beam_search" ? String(decoding.activePaths) : "",
    }),
  );
  await engine.check();
  const rssAfterLoadBytes = process.memoryUsage().rss;

  let audioSeconds = 0;
  let wallSeconds = 0;
  let cpuSeconds = 0;
  const fixtureWer: number[] = [];
  const fixtureTexts: string[] = [];
  for (const fixture of FIXTURES) {
    const result = await timed(engine, audioFixture(fixture.path));
    const text = textOf(result.transcript);
    fixtureWer.push(wordErrorRate(fixture.reference, text));
    fixtureTexts.push(text);
    audioSeconds += result.transcript.duration;
    wallSeconds += result.wallSeconds;
    cpuSeconds += result.cpuSeconds;
  }
  const joined = await timed(engine, media.joined);
  audioSeconds += joined.transcript.duration;
  wallSeconds += joined.wallSeconds;
  cpuSeconds += joined.cpuSeconds;

  const looped = await timed(engine, media.looped);
  return {
    decoding: engine.info.decoding ?? decodingName(decoding),
    fixtureWer,
    fixtureTexts,
    joinedWer: wordErrorRate(JOINED_REFERENCE, textOf(joined.transcript)),
    clipsRtf: { wall: wallSeconds / audioSeconds, cpu: cpuSeconds / audioSeconds },
    loopedRtf: {
      wall: looped.wallSeconds / looped.transcript.duration,
      cpu: looped.cpuSeconds / looped.transcript.duration,
    },
    loopedSegments: looped.transcript.segments.length,
    rssAfterLoadBytes,
    // maxRSS is in kibibytes: the process's high-water mark, model, buffers and all.
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
  };
}

function runSettingInChild(decoding: SherpaDecoding, media: SharedMedia): Promise<SettingResult> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), ["--setting", JSON.stringify({ decoding, media })], {
      execArgv: ["--import", import.meta.resolve("tsx")],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    let result: SettingResult | undefined;
    child.on("message", (message: SettingResult) => {
      result = message;
    });
    child.on("error", reject);
    child.on("exit", (code) => {
      if (result) resolve(result);
      else reject(new Error(`the ${decodingName(decoding)} run exited with code ${code} and no result`));
    });
  });
}

const percent = (rate: number) => `${(100 * rate).toFixed(1)} %`;
const mebibytes = (bytes: number) => `${(bytes / MEBIBYTE).toFixed(0)} MiB`;

function printTable(results: SettingResult[]): void {
  const fixtureNames = FIXTURES.map((fixture) => fixture.path.split("/").at(-1) ?? fixture.path);
  const header = [
    "decoding",
    ...fixtureNames.map((name) => `WER ${name}`),
    "WER mean",
    "WER joined",
    "RTF clips wall / CPU",
    `RTF ${LOOPED_SECONDS / 60} min wall / CPU`,
    "RSS loaded / peak",
  ];
  const rows = results.map((result) => [
    result.decoding,
    ...result.fixtureWer.map(percent),
    percent(result.fixtureWer.reduce((sum, wer) => sum + wer, 0) / result.fixtureWer.length),
    percent(result.joinedWer),
    `${result.clipsRtf.wall.toFixed(4)} / ${result.clipsRtf.cpu.toFixed(4)}`,
    `${result.loopedRtf.wall.toFixed(4)} / ${result.loopedRtf.cpu.toFixed(4)}`,
    `${mebibytes(result.rssAfterLoadBytes)} / ${mebibytes(result.peakRssBytes)}`,
  ]);
  console.log(`| ${header.join(" | ")} |`);
  console.log(`|${header.map((_, index) => (index === 0 ? "---" : "---:")).join("|")}|`);
  for (const row of rows) console.log(`| ${row.join(" | ")} |`);
}

async function main(): Promise<void> {
  const engine = createSpeechEngine(speechEngineConfigFrom({ ...process.env, VERBATIM_ASR_ENGINE: "sherpa-onnx" }));
  console.log(
    `Speech engine: ${engine.info.engine}, model ${engine.info.model}, default decoding ${engine.info.decoding}; ` +
      `Node ${process.version}, one recognizer thread, ${availableParallelism()} cores, ` +
      `load average ${loadavg()[0]?.toFixed(2)} before the run (RTF on a shared machine is noisy; CPU RTF less so).`,
  );
  const dir = await mkdtemp(join(tmpdir(), "verbatim-bench-asr-"));
  try {
    const media = await sharedMedia(dir, LOOPED_SECONDS);
    const results: SettingResult[] = [];
    for (const decoding of SETTINGS) {
      const result = await runSettingInChild(decoding, media);
      console.log(
        `${result.decoding}: ${result.fixtureTexts.map((text, index) => `${FIXTURES[index]?.path} "${text}"`).join("; ")}; ` +
          `${result.loopedSegments} segments in the looped file`,
      );
      results.push(result);
    }
    printTable(results);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function child(spec: string): Promise<void> {
  const { decoding, media } = JSON.parse(spec) as { decoding: SherpaDecoding; media: SharedMedia };
  const result = await measureSetting(decoding, media);
  await new Promise<void>((resolve, reject) =>
    process.send?.(result, (error: Error | null) => (error ? reject(error) : resolve())),
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const settingAt = process.argv.indexOf("--setting");
  if (settingAt >= 0) await child(process.argv[settingAt + 1] ?? "");
  else await main();
}
