// `npx tsx bench/sdk.ts` (part of `pnpm bench`): the Node SDK's overhead per call. The same
// `GET /api/v2/me` is sent by a bare `fetch` (parse the JSON, check `ok`) and by `verbatim.me()`
// (headers, retry loop, per-attempt timeout, envelope unwrapping, rate-limit headers), from this
// process to the real API in a child process, in interleaved rounds so drift hits both alike.
import { performance } from "node:perf_hooks";
import { Verbatim } from "@verbatim/sdk";
import { positiveNumber } from "./http-bench.ts";
import type { TargetSpec } from "./protocol.ts";
import { textTable, verdict } from "./report.ts";
import { TargetProcess } from "./target-process.ts";

const callsPerRun = positiveNumber("VERBATIM_BENCH_SDK_CALLS", 2_000);
const concurrency = positiveNumber("VERBATIM_BENCH_SDK_CONCURRENCY", 4);
const rounds = positiveNumber("VERBATIM_BENCH_SDK_ROUNDS", 3);
/** The goal of issue 11: the SDK adds under 5 % to a call. */
const overheadGoal = 0.05;

type Caller = () => Promise<void>;

interface Measured {
  wallMs: number;
  /** CPU this process spent, user and system, in milliseconds. */
  clientCpuMs: number;
}

/** Sends `callsPerRun` calls through `call`, `concurrency` at a time. */
async function measure(call: Caller): Promise<Measured> {
  let sent = 0;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (sent < callsPerRun) {
        sent += 1;
        await call();
      }
    }),
  );
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  return { wallMs, clientCpuMs: (cpu.user + cpu.system) / 1000 };
}

async function main(): Promise<void> {
  const { target, url, apiKeys } = await TargetProcess.start<TargetSpec>(
    new URL("./target-server.ts", import.meta.url),
    {
      name: "embedded",
    },
  );
  try {
    const apiKey = apiKeys[0];
    if (!apiKey) throw new Error("the target server created no account");
    const meUrl = `${url}/api/v2/me`;
    const bare: Caller = async () => {
      const response = await fetch(meUrl, { headers: { authorization: `Bearer ${apiKey}` } });
      const body = (await response.json()) as { ok?: boolean };
      if (body.ok !== true) throw new Error(`GET /me answered ${response.status}`);
    };
    const verbatim = new Verbatim({ apiKey, baseUrl: url });
    const sdk: Caller = async () => {
      await verbatim.me();
    };

    console.log(
      `Verbatim benchmark: the Node SDK's overhead on GET /api/v2/me (PGlite server in a child process), ` +
        `${callsPerRun} calls per run, ${concurrency} at a time, ${rounds} interleaved rounds after a warm-up. ` +
        "Set VERBATIM_BENCH_SDK_CALLS, VERBATIM_BENCH_SDK_CONCURRENCY, VERBATIM_BENCH_SDK_ROUNDS to change.",
    );
    await measure(bare);
    await measure(sdk);

    const runs: { caller: "bare fetch" | "SDK"; measured: Measured }[] = [];
    for (let round = 0; round < rounds; round += 1) {
      runs.push({ caller: "bare fetch", measured: await measure(bare) });
      runs.push({ caller: "SDK", measured: await measure(sdk) });
    }

    const total = (caller: string) => {
      const chosen = runs.filter((run) => run.caller === caller).map((run) => run.measured);
      const calls = chosen.length * callsPerRun;
      const wallMs = chosen.reduce((sum, run) => sum + run.wallMs, 0);
      const clientCpuMs = chosen.reduce((sum, run) => sum + run.clientCpuMs, 0);
      return {
        perCallMs: (wallMs / calls) * concurrency,
        callsPerSecond: calls / (wallMs / 1000),
        clientCpuUs: (clientCpuMs / calls) * 1000,
      };
    };
    const bareTotal = total("bare fetch");
    const sdkTotal = total("SDK");
    const overhead = sdkTotal.perCallMs / bareTotal.perCallMs - 1;
    console.log(
      textTable(
        ["caller", "ms per call", "calls/s", "client CPU µs per call"],
        [
          [
            "bare fetch",
            bareTotal.perCallMs.toFixed(3),
            bareTotal.callsPerSecond.toFixed(0),
            bareTotal.clientCpuUs.toFixed(0),
          ],
          ["SDK", sdkTotal.perCallMs.toFixed(3), sdkTotal.callsPerSecond.toFixed(0), sdkTotal.clientCpuUs.toFixed(0)],
        ],
      ),
    );
    const extraCpuUs = sdkTotal.clientCpuUs - bareTotal.clientCpuUs;
    const cpuOverhead = sdkTotal.clientCpuUs / bareTotal.clientCpuUs - 1;
    console.log("");
    console.log(
      "ms per call: wall time per call, the time a caller waits. client CPU: what this process spent per call; " +
        "on a shared machine it moves less than wall time, which other processes' load stretches.",
    );
    console.log("");
    console.log(`Goal (docs/performance.md: the SDK adds under ${overheadGoal * 100} % to a call), on the totals:`);
    console.log(
      `  ${verdict(overhead < overheadGoal, `wall time: ${percent(overhead)} over the bare call's ${bareTotal.perCallMs.toFixed(3)} ms`)}`,
    );
    console.log(
      `  client CPU, not a goal but the firmer figure on a loaded machine: ${percent(cpuOverhead)} over the bare ` +
        `call's ${bareTotal.clientCpuUs.toFixed(0)} µs (${extraCpuUs.toFixed(0)} µs more per call)`,
    );
  } finally {
    await target.close();
  }
}

/** A ratio as a signed percentage with one decimal. */
function percent(ratio: number): string {
  return `${ratio >= 0 ? "+" : ""}${(ratio * 100).toFixed(1)} %`;
}

await main();
