// `npx tsx bench/ytdlp-sidecar.ts` (part of `pnpm bench`): p50 and p95 latency of one yt-dlp
// extraction (`-J`) through the warm sidecar (src/sources/ytdlp) beside a `python -m yt_dlp -J`
// process per call, at concurrencies 1, 4 and 16, against the tests' fake Streamable on loopback
// (TLS with the tests' own CA, through a CONNECT proxy), so the figures are yt-dlp's and the
// process model's, not a platform's.
import { execFile } from "node:child_process";
import { performance } from "node:perf_hooks";
import { promisify } from "node:util";
import { pino } from "pino";
import { createYtdlpSidecar } from "../src/sources/ytdlp/ytdlp-sidecar.ts";
import { FakeStreamable, readyProjectYtdlp } from "../test/ytdlp/harness.ts";
import { positiveNumber } from "./http-bench.ts";
import { textTable } from "./report.ts";

const callsPerRun = positiveNumber("VERBATIM_BENCH_YTDLP_CALLS", 32);
const concurrencies = [1, 4, 16];
const url = "https://streamable.com/bench1";
const run = promisify(execFile);

type Call = () => Promise<void>;

/** Each call's milliseconds, `concurrency` calls in flight at a time. */
async function latencies(call: Call, concurrency: number): Promise<number[]> {
  const measured: number[] = [];
  let started = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (started < callsPerRun) {
        started += 1;
        const before = performance.now();
        await call();
        measured.push(performance.now() - before);
      }
    }),
  );
  return measured.sort((a, b) => a - b);
}

function percentile(sorted: number[], share: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)] ?? Number.NaN;
}

async function main(): Promise<void> {
  const engine = readyProjectYtdlp();
  const fake = await FakeStreamable.start();
  fake.video("bench1", { mobile: { bytes: Buffer.alloc(1000), width: 640 } });
  const sidecar = createYtdlpSidecar({
    ...engine,
    extractors: ["Streamable"],
    caFile: fake.certificates.caFile,
    maxConcurrentCalls: Math.max(...concurrencies),
    logger: pino({ level: "silent" }),
  });
  const proxy = fake.proxyUrl("call-bench");
  const viaSidecar: Call = async () => {
    await sidecar.extract(url, { proxy, deadlineMs: 120_000 });
  };
  const perProcess: Call = async () => {
    await run(
      engine.python,
      [
        "-m",
        "yt_dlp",
        "-J",
        "--ignore-config",
        "--no-plugin-dirs",
        "--use-extractors",
        "streamable",
        "--no-cookies",
        "--proxy",
        proxy,
        url,
      ],
      // The process trusts the fake's CA alone: it talks to nothing else.
      { env: { ...process.env, SSL_CERT_FILE: fake.certificates.caFile }, maxBuffer: 16 * 1024 * 1024 },
    );
  };
  // Starts the sidecar and warms both paths' file caches before anything is timed.
  await viaSidecar();
  await perProcess();

  console.log(`yt-dlp extraction (-J) of one fake Streamable video, ${callsPerRun} calls per row, in milliseconds`);
  const rows: string[][] = [];
  for (const concurrency of concurrencies) {
    for (const [label, call] of [
      ["warm sidecar", viaSidecar],
      ["process per call", perProcess],
    ] as const) {
      const sorted = await latencies(call, concurrency);
      rows.push([label, String(concurrency), percentile(sorted, 0.5).toFixed(0), percentile(sorted, 0.95).toFixed(0)]);
    }
  }
  console.log(textTable(["engine", "concurrency", "p50 ms", "p95 ms"], rows));
  await sidecar.close();
  await fake.close();
}

await main();
