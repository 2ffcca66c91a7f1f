// `npx tsx bench/asr.ts`: the speech engine's real-time factor and the process's peak memory on
// 2- and 10-minute files looped from the recorded fixtures, plus the word error rate per fixture.
// The goal (docs/performance.md): real-time factor 0.03 or better per worker, memory flat with duration.
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createSpeechEngine, type SpeechEngine, transcribeMedia } from "../src/adapters/asr/index.ts";
import { resolveFfmpegPath } from "../src/adapters/media/decoder.ts";
import { audioFixture, JFK_REFERENCE } from "../test/asr/generated-media.ts";
import { wordErrorRate } from "../test/asr/word-error-rate.ts";

const run = promisify(execFile);
const FIXTURES = ["whisper-cpp/jfk.wav", "whisper-cpp/jfk.mp3", "openai-whisper/jfk.flac"];
const MEBIBYTE = 1024 * 1024;

async function ffmpeg(args: string[]): Promise<void> {
  await run(resolveFfmpegPath(), ["-hide_banner", "-nostdin", "-y", ...args]);
}

/** A WAV file of `seconds` made by looping the fixtures one after another (each resampled to 16 kHz mono). */
async function loopedFixtures(dir: string, seconds: number): Promise<string> {
  const mix = join(dir, "mix.wav");
  const inputs = FIXTURES.flatMap((fixture) => ["-i", audioFixture(fixture)]);
  const labels = FIXTURES.map((_, index) => `[${index}:a]aresample=16000,aformat=channel_layouts=mono[a${index}]`);
  const concat = `${FIXTURES.map((_, index) => `[a${index}]`).join("")}concat=n=${FIXTURES.length}:v=0:a=1[mix]`;
  await ffmpeg([...inputs, "-filter_complex", `${labels.join(";")};${concat}`, "-map", "[mix]", mix]);
  const output = join(dir, `looped-${seconds}s.wav`);
  await ffmpeg(["-stream_loop", "-1", "-i", mix, "-t", String(seconds), output]);
  return output;
}

/** Wall time over audio time and the highest RSS seen while transcribing one file. */
async function measure(engine: SpeechEngine, path: string) {
  let peakRss = process.memoryUsage().rss;
  const sample = () => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  };
  // Recognition runs on this thread in ~20 ms slices, so the timer fires between them; progress samples too.
  const timer = setInterval(sample, 100);
  const started = performance.now();
  try {
    const transcript = await transcribeMedia(engine, path, { onProgress: sample });
    const seconds = (performance.now() - started) / 1000;
    sample();
    return {
      audioSeconds: transcript.duration,
      realTimeFactor: seconds / transcript.duration,
      peakRss,
      segments: transcript.segments.length,
    };
  } finally {
    clearInterval(timer);
  }
}

async function main(): Promise<void> {
  const rssBeforeModel = process.memoryUsage().rss;
  const engine = createSpeechEngine();
  await engine.check();
  console.log(
    `Speech engine: ${engine.info.engine}, model ${engine.info.model}; Node ${process.version}, one recognizer thread.`,
  );
  console.log(
    `RSS ${(rssBeforeModel / MEBIBYTE).toFixed(0)} MiB before the model loaded (Node and tsx), ` +
      `${(process.memoryUsage().rss / MEBIBYTE).toFixed(0)} MiB after.`,
  );

  for (const fixture of FIXTURES) {
    const transcript = await transcribeMedia(engine, audioFixture(fixture));
    const text = transcript.segments.map((segment) => segment.text).join(" ");
    console.log(`WER ${(100 * wordErrorRate(JFK_REFERENCE, text)).toFixed(1)} % on ${fixture}: "${text}"`);
  }

  const dir = await mkdtemp(join(tmpdir(), "verbatim-bench-asr-"));
  try {
    for (const minutes of [2, 10]) {
      const path = await loopedFixtures(dir, minutes * 60);
      const result = await measure(engine, path);
      console.log(
        `${minutes} min: real-time factor ${result.realTimeFactor.toFixed(4)} (${(1 / result.realTimeFactor).toFixed(0)}x real time), ` +
          `peak RSS ${(result.peakRss / MEBIBYTE).toFixed(0)} MiB, ${result.segments} segments over ${result.audioSeconds.toFixed(0)} s`,
      );
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
