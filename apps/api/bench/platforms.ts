// `npx tsx bench/platforms.ts` (part of `pnpm bench`): the latency of one yt-dlp extraction
// (`extract`, what resolving a link costs) of an item of TikTok, Vimeo, Dailymotion and X, through
// the warm sidecar (src/sources/ytdlp) beside a `python -m yt_dlp -J` process per call, at
// concurrencies 1, 4 and 16, against the tests' platform double (packages/testkit/src/platform-double.ts:
// TLS with the test CA, answers from packages/testkit/fixtures/platforms). Both go through the egress guard as
// production runs it: public targets only, the double as its upstream proxy, one `openCall` per
// extraction whose `proxyUrl` the extraction is given. The sidecar has production's settings
// (every default extractor, 8 calls in the process at once: at 16 the others wait their turn).
//
// "double" is the double's own time for one extraction: the requests the sidecar's extraction of
// the item made (its first, unmeasured one, as the double recorded them) replayed in the same
// order by undici straight to the double, with a CONNECT and TLS handshake of their own wherever
// yt-dlp opened one. So it counts everything the double does for those requests (tunnels, TLS,
// routing, reading the fixture) plus a lean HTTP client's own work, and no yt-dlp, Python, pipe or
// guard. The double records no request bodies: a POST is replayed with the text its route matches
// on (`bodyIncludes`), which reaches the same answer. "double+guard" is the same replay through an
// egress guard call, to tell the guard's share from Python's. The double, the guard and this script
// share one Node process, as the double's answers and the guard share the API's in the tests.
//
// The goal (the platforms issue): the sidecar adds at most 50 ms to p50 over the double, at every
// concurrency. Set VERBATIM_BENCH_YTDLP_CALLS (32) to change the calls per row.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { performance } from "node:perf_hooks";
import { promisify } from "node:util";
import { type PlatformRoute, platformFixture, startPlatformDouble } from "@verbatim/testkit/platform-double";
import { pino } from "pino";
import { ProxyAgent, request } from "undici";
import { type EgressGuard, startEgressGuard } from "../src/sources/egress/egress-guard.ts";
import { createYtdlpSidecar } from "../src/sources/ytdlp/ytdlp-sidecar.ts";
import { readyProjectYtdlp } from "../test/ytdlp/harness.ts";
import { positiveNumber } from "./http-bench.ts";
import { type CpuSnapshot, cpuSnapshot } from "./machine.ts";
import { textTable } from "./report.ts";

const callsPerRun = positiveNumber("VERBATIM_BENCH_YTDLP_CALLS", 32);
const concurrencies = [1, 4, 16];
const goalMs = 50;
/** What YtdlpSource.resolve gives each extraction (src/sources/ytdlp/ytdlp-source.ts). */
const callLimits = { maxBytes: 50 * 1024 * 1024, deadlineMs: 60_000 };
const run = promisify(execFile);

interface BenchItem {
  label: string;
  /** Its folder of packages/testkit/fixtures/platforms. */
  folder: string;
  /** yt-dlp's name of its extractor, for the process's `--use-extractors`. */
  extractor: string;
  url: string;
}

const items: BenchItem[] = [
  {
    label: "TikTok",
    folder: "tiktok",
    extractor: "tiktok",
    url: "https://www.tiktok.com/@verbatim.tests/video/7400000000000000001",
  },
  { label: "Vimeo", folder: "vimeo", extractor: "vimeo", url: "https://player.vimeo.com/video/76979871" },
  {
    label: "Dailymotion",
    folder: "dailymotion",
    extractor: "dailymotion",
    url: "https://www.dailymotion.com/video/x8jfk01",
  },
  { label: "X", folder: "x", extractor: "twitter", url: "https://x.com/verbatimtests/status/1900000000000000001" },
];

/** One connection yt-dlp opened, and the requests it sent on it. */
interface Connection {
  requests: { method: string; url: string; body?: string }[];
}

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

/** The double's record of one extraction, cut into connections: each CONNECT starts one. */
async function connectionsOf(recorded: { method: string; url: string }[], item: BenchItem): Promise<Connection[]> {
  const table = JSON.parse(await readFile(platformFixture(`${item.folder}/routes.json`), "utf8")) as {
    routes: PlatformRoute[];
  };
  const connections: Connection[] = [];
  for (const { method, url } of recorded) {
    if (method === "CONNECT") {
      connections.push({ requests: [] });
      continue;
    }
    // A request in absolute form (plain http) came on a connection of its own.
    if (!url.startsWith("https:") || connections.length === 0) connections.push({ requests: [] });
    const body = method === "POST" ? bodyMatching(table.routes, url, item) : undefined;
    connections.at(-1)?.requests.push({ method, url, ...(body === undefined ? {} : { body }) });
  }
  return connections;
}

/** The text a POST's route looks for in the body: of the routes of its address, the one naming the item. */
function bodyMatching(routes: PlatformRoute[], url: string, item: BenchItem): string {
  const address = new URL(url);
  const candidates = routes.filter((route) => {
    const routeAddress = new URL(route.url);
    return (
      route.method?.toUpperCase() === "POST" &&
      routeAddress.host === address.host &&
      routeAddress.pathname === address.pathname
    );
  });
  const route =
    candidates.find((candidate) => candidate.bodyIncludes && item.url.includes(candidate.bodyIncludes)) ??
    candidates[0];
  return route?.bodyIncludes ?? "";
}

/** The connections' requests in turn through `proxyUrl`, each connection tunnelled and closed as yt-dlp's was. */
async function replay(connections: Connection[], proxyUrl: string, ca: string): Promise<void> {
  for (const connection of connections) {
    const agent = new ProxyAgent({ uri: proxyUrl, requestTls: { ca } });
    try {
      for (const sent of connection.requests) {
        const answer = await request(sent.url, {
          dispatcher: agent,
          method: sent.method as "GET" | "POST" | "HEAD",
          ...(sent.body === undefined ? {} : { body: sent.body }),
        });
        await answer.body.arrayBuffer();
        if (answer.statusCode === 404) throw new Error(`The replay of ${sent.method} ${sent.url} found no route`);
      }
    } finally {
      await agent.close();
    }
  }
}

/** `work` given the proxy address of an egress guard call of its own, closed after. */
async function throughGuard(guard: EgressGuard, work: (proxy: string) => Promise<unknown>): Promise<void> {
  const call = guard.openCall(callLimits);
  try {
    await work(call.proxyUrl);
  } finally {
    call.close();
  }
}

/** CPU of this process's children that ended (the processes per call), from `/proc/self/stat`; 0 without it. */
function endedChildrenCpuMs(): number {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    // After "pid (comm) ", cutime and cstime are the 14th and 15th fields (man 5 proc), in USER_HZ (100).
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[13] ?? 0) + Number(fields[14] ?? 0)) * 10;
  } catch {
    return 0;
  }
}

/** CPU of the sidecar's Python process so far (it stays the same process unless it crashes). */
function sidecarCpuMs(pid: number | undefined): number {
  if (pid === undefined) return 0;
  const snapshot = cpuSnapshot([pid]);
  return snapshot.benchMs - snapshot.ownMs;
}

/** Cores busy with other work than this benchmark's processes since `before`; null without `/proc/stat`. */
function otherCores(before: CpuSnapshot & { endedMs: number }, sidecarPid: number | undefined): number | null {
  const after = cpuSnapshot(sidecarPid === undefined ? [] : [sidecarPid]);
  if (!before.machine || !after.machine) return null;
  const ours = after.benchMs - before.benchMs + endedChildrenCpuMs() - before.endedMs;
  return Math.max(0, after.machine.busyMs - before.machine.busyMs - ours) / (after.wallMs - before.wallMs);
}

function milliseconds(value: number): string {
  return value.toFixed(0);
}

async function main(): Promise<void> {
  const logger = pino({ level: "silent" });
  const engine = readyProjectYtdlp();
  const double = await startPlatformDouble({ platforms: items.map((item) => item.folder) });
  const ca = await readFile(double.caFile, "utf8");
  const guard = await startEgressGuard({ allowPrivateTargets: false, upstreamProxyUrls: [double.proxyUrl], logger });
  const sidecar = createYtdlpSidecar({ ...engine, caFile: double.caFile, logger });

  console.log(
    `One yt-dlp extraction through the egress guard against the platform double, ${callsPerRun} calls per row, ` +
      `in milliseconds; goal: sidecar p50 at most ${goalMs} ms over the double's.`,
  );
  let goalMissed = false;
  for (const item of items) {
    const viaSidecar: Call = () =>
      throughGuard(guard, (proxy) => sidecar.extract(item.url, { proxy, deadlineMs: 60_000 }));
    const perProcess: Call = () =>
      throughGuard(guard, (proxy) =>
        run(
          engine.python,
          [
            ...["-m", "yt_dlp", "-J", "--ignore-config", "--no-plugin-dirs", "--no-cache-dir", "--no-playlist"],
            ...["--use-extractors", item.extractor, "--socket-timeout", "20", "--compat-options", "no-certifi"],
            // What the sidecar's `extract` asks for too: some extractors list subtitles only then.
            ...["--write-subs", "--write-auto-subs", "--sub-langs", "all", "--proxy", proxy, item.url],
          ],
          // The process trusts the double's CA alone: it talks to nothing else.
          {
            env: {
              ...process.env,
              ...(engine.pythonPath ? { PYTHONPATH: engine.pythonPath } : {}),
              SSL_CERT_FILE: double.caFile,
            },
            maxBuffer: 16 * 1024 * 1024,
          },
        ),
      );
    // The first extraction starts the sidecar and warms the caches; the double's record of it is what is replayed.
    const recordedFrom = double.requests.length;
    await viaSidecar();
    const connections = await connectionsOf(double.requests.slice(recordedFrom), item);
    const direct: Call = () => replay(connections, double.proxyUrl, ca);
    const guarded: Call = () => throughGuard(guard, (proxy) => replay(connections, proxy, ca));
    await perProcess();
    await direct();

    const rows: string[][] = [];
    for (const concurrency of concurrencies) {
      const before = { ...cpuSnapshot(sidecar.pid === undefined ? [] : [sidecar.pid]), endedMs: endedChildrenCpuMs() };
      const doubleMs = percentile(await latencies(direct, concurrency), 0.5);
      const guardedMs = percentile(await latencies(guarded, concurrency), 0.5);
      const sidecarCpuBefore = sidecarCpuMs(sidecar.pid);
      const sidecarMs = await latencies(viaSidecar, concurrency);
      const sidecarCpu = (sidecarCpuMs(sidecar.pid) - sidecarCpuBefore) / callsPerRun;
      const processCpuBefore = endedChildrenCpuMs();
      const processMs = await latencies(perProcess, concurrency);
      const processCpu = (endedChildrenCpuMs() - processCpuBefore) / callsPerRun;
      const overhead = percentile(sidecarMs, 0.5) - doubleMs;
      if (overhead > goalMs) goalMissed = true;
      const foreign = otherCores(before, sidecar.pid);
      rows.push([
        String(concurrency),
        milliseconds(doubleMs),
        milliseconds(guardedMs),
        milliseconds(percentile(sidecarMs, 0.5)),
        milliseconds(percentile(sidecarMs, 0.95)),
        milliseconds(sidecarCpu),
        milliseconds(percentile(processMs, 0.5)),
        milliseconds(percentile(processMs, 0.95)),
        milliseconds(processCpu),
        milliseconds(overhead),
        overhead <= goalMs ? "met" : "missed",
        foreign === null ? "n/a" : foreign.toFixed(2),
      ]);
    }
    const requests = connections.reduce((sum, connection) => sum + connection.requests.length, 0);
    console.log(`\n${item.label}: ${item.url} (${requests} requests on ${connections.length} connections)`);
    console.log(
      textTable(
        [
          "concurrency",
          "double p50",
          "double+guard p50",
          "sidecar p50",
          "sidecar p95",
          "sidecar CPU",
          "process p50",
          "process p95",
          "process CPU",
          "sidecar − double p50",
          `≤ ${goalMs} ms`,
          "other cores",
        ],
        rows,
      ),
    );
  }
  console.log(
    "\nsidecar CPU, process CPU: milliseconds of CPU per call of the sidecar's Python process, of the processes per " +
      "call; they move much less than the latencies with other load on the machine.",
  );
  console.log(
    `other cores: CPU of other processes on the machine over the row (not this script's, the sidecar's or the ` +
      `processes per call), in cores of ${availableParallelism()}; above ~0.1 the row's figures are inflated by foreign load.`,
  );
  const verdict = goalMissed ? "missed on at least one row" : "met on every row";
  console.log(`\nGoal (sidecar p50 at most ${goalMs} ms over the double's): ${verdict}.`);
  await sidecar.close();
  await guard.close();
  await double.close();
}

await main();
