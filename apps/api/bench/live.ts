// `npx tsx bench/live.ts`: a live session as an operator runs it. The service (`src/main.ts`, embedded
// store, one process) transcribes a live HLS stream that ffmpeg encodes in real time on loopback (looped
// jfk.wav, `VERBATIM_BENCH_LIVE_SECONDS` long, default 60), read by a client of its server-sent events.
// It prints the lag between the end of each final segment's audio and the event that carries it
// (p50, p95, max), when the first partial of each utterance came, and the CPU the service took per
// minute of live audio (its own and its ffmpeg decoder's), beside the segments' word error rate.
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serverSentEvents } from "@verbatim/sdk";
import { seedDataDirectory } from "@verbatim/testkit/store-template";
import { JFK_REFERENCE } from "../test/asr/generated-media.ts";
import { wordErrorRate } from "../test/asr/word-error-rate.ts";
import { jobServiceEnvironment, listeningUrl, startServiceProcess } from "../test/audio/service-process.ts";
import { speechRecording, startLiveHlsServer } from "../test/live/live-hls.ts";

const seconds = Number(process.env.VERBATIM_BENCH_LIVE_SECONDS ?? 60);
/** USER_HZ, the unit of `/proc/<pid>/stat`. */
const ticksPerSecond = 100;

/** CPU time of a process and of its children that it has waited for (its ffmpeg decoders), in seconds. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // utime, stime, cutime, cstime are fields 14 to 17 of the whole line (man 5 proc).
  return [11, 12, 13, 14].reduce((total, index) => total + Number(fields[index] ?? 0), 0) / ticksPerSecond;
}

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] ?? Number.NaN;
}

const dataDir = await mkdtemp(join(tmpdir(), "verbatim-bench-live-"));
seedDataDirectory(dataDir);
const recording = await speechRecording(seconds);
const hls = await startLiveHlsServer();
const service = startServiceProcess({
  ...jobServiceEnvironment,
  VERBATIM_DATA_DIR: dataDir,
  DATABASE_URL: "",
});
try {
  const apiKey = (await service.waitForLine(/^\s+vb_live_/, 60_000)).trim();
  const baseUrl = await listeningUrl(service);
  const headers = { authorization: `Bearer ${apiKey}`, "content-type": "application/json" };
  // Let the service settle (its first checks, the model's load on first use) before measuring.
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  const pid = service.process.pid as number;
  // What the service takes doing nothing (its job queue's polls, the scheduler), to tell the session's share.
  const idleStarted = Date.now();
  const idleBefore = cpuSeconds(pid);
  await new Promise((resolve) => setTimeout(resolve, 15_000));
  const idlePerSecond = (cpuSeconds(pid) - idleBefore) / ((Date.now() - idleStarted) / 1000);

  const encoderStarted = Date.now();
  const { url, done } = await hls.live("bench", recording.path);
  const cpuBefore = cpuSeconds(pid);
  const created = await fetch(`${baseUrl}/api/v2/live`, { method: "POST", headers, body: JSON.stringify({ url }) });
  const session = ((await created.json()) as { data: { id: string } }).data;
  const events = await fetch(`${baseUrl}/api/v2/live/${session.id}/events`, { headers });

  const lags: number[] = [];
  const partialLeads: number[] = [];
  const texts: string[] = [];
  let partialSeenAt: number | null = null;
  let ended = null as { audio_seconds: number; credits_spent: number } | null;
  for await (const message of serverSentEvents(events.body as AsyncIterable<Uint8Array>)) {
    const at = Date.now();
    const event = JSON.parse(message.data) as Record<string, unknown>;
    if (event.type === "live.partial" && partialSeenAt === null) partialSeenAt = at;
    if (event.type === "live.segment") {
      const audioEnd = encoderStarted + ((event.start as number) + (event.duration as number)) * 1000;
      lags.push((at - audioEnd) / 1000);
      if (partialSeenAt !== null) partialLeads.push((at - partialSeenAt) / 1000);
      partialSeenAt = null;
      texts.push(event.text as string);
    }
    if (event.type === "live.ended" || event.type === "live.failed") {
      ended = event as unknown as { audio_seconds: number; credits_spent: number };
      break;
    }
  }
  await done;
  // The decoder has exited and been waited for once the session ended: its CPU is in the service's.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const cpu = cpuSeconds(pid) - cpuBefore;
  const idle = idlePerSecond * ((Date.now() - encoderStarted) / 1000);
  const audioMinutes = (ended?.audio_seconds ?? seconds) / 60;
  const reference = Array.from({ length: Math.ceil(seconds / 11) }, () => JFK_REFERENCE).join(" ");
  process.stdout.write(
    [
      `live session of ${ended?.audio_seconds.toFixed(1)} s of speech (${lags.length} final segments, ${ended?.credits_spent} credits)`,
      `lag, end of a segment's audio to its live.segment event: p50 ${percentile(lags, 0.5).toFixed(2)} s, p95 ${percentile(lags, 0.95).toFixed(2)} s, max ${Math.max(...lags).toFixed(2)} s`,
      `first live.partial of an utterance, ahead of its segment: p50 ${percentile(partialLeads, 0.5).toFixed(2)} s`,
      `CPU of the service per live minute: ${(cpu / audioMinutes).toFixed(2)} s (${((cpu / audioMinutes / 60) * 100).toFixed(1)} % of a core); above the idle service's ${(idle / audioMinutes).toFixed(2)} s: ${((cpu - idle) / audioMinutes).toFixed(2)} s`,
      `word error rate of the segments against the looped reference: ${(wordErrorRate(reference, texts.join(" ")) * 100).toFixed(1)} % (the stream is cut mid-sentence at its end)`,
      "",
    ].join("\n"),
  );
} finally {
  await service.kill("SIGTERM");
  await hls.close();
  await recording.remove();
  await rm(dataDir, { recursive: true, force: true });
}
