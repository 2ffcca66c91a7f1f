// `npx tsx bench/sdk.ts` (part of `pnpm bench`): the Node SDK's overhead per call. The same
// `GET /api/v2/me` is sent by a bare `fetch` (parse the JSON, check `ok`) and by `verbatim.me()`
// (headers, retry loop, per-attempt timeout, envelope unwrapping, rate-limit headers), from this
// process to the compiled API (`node dist/main.js` on PGlite, bench/compiled-api.ts), in
// interleaved rounds so drift hits both alike.
import { performance } from "node:perf_hooks";
import { Verbatim } from "@verbatim/sdk";
import { benchAccounts, unlimitedAllowances } from "./bench-accounts.ts";
import { buildCompiledApi, startCompiledApi } from "./compiled-api.ts";
import { positiveNumber } from "./http-bench.ts";
import { textTable, verdict } from "./report.ts";

const callsPerRun = positiveNumber("VERBATIM_BENCH_SDK_CALLS", 2_000);
const concurrency = positiveNumber("VERBATIM_BENCH_SDK_CONCURRENCY", 4);
const rounds = positiveNumber("VERBATIM_BENCH_SDK_ROUNDS", 3);
const layerCallsPerRun = positiveNumber("VERBATIM_BENCH_SDK_LAYER_CALLS", 50_000);
/** The goal of issue 11: the SDK adds under 5 % to a call. */
const overheadGoal = 0.05;

type Caller = () => Promise<void>;

interface Measured {
  wallMs: number;
  /** CPU this process spent, user and system, in milliseconds. */
  clientCpuMs: number;
}

/** Sends `calls` calls through `call`, `concurrency` at a time. */
async function measure(call: Caller, calls = callsPerRun): Promise<Measured> {
  let sent = 0;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (sent < calls) {
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
  const compiled = await buildCompiledApi();
  // On PGlite the plans keep their polling allowance (bench/compiled-api.ts), so the calls take turns
  // over the accounts' keys: 1,800 polls a minute each.
  const { target, url, apiKeys, removeDataDir } = await startCompiledApi(
    compiled,
    { name: "embedded" },
    { accounts: benchAccounts, planSetting: unlimitedAllowances },
  );
  try {
    if (apiKeys.length === 0) throw new Error("the target server created no account");
    const meUrl = `${url}/api/v2/me`;
    const bareHeaders = apiKeys.map((apiKey) => ({ authorization: `Bearer ${apiKey}` }));
    let bareTurn = 0;
    const bare: Caller = async () => {
      const headers = bareHeaders[bareTurn++ % bareHeaders.length];
      const response = await fetch(meUrl, { headers });
      const body = (await response.json()) as { ok?: boolean };
      if (body.ok !== true) throw new Error(`GET /me answered ${response.status}`);
    };
    // No retries: a 429 fails the benchmark, as it fails the bare call, instead of waiting out its Retry-After.
    const clients = apiKeys.map((apiKey) => new Verbatim({ apiKey, baseUrl: url, maxRetries: 0 }));
    let sdkTurn = 0;
    const sdk: Caller = async () => {
      await clients[sdkTurn++ % clients.length]?.me();
    };

    console.log(
      `Verbatim benchmark: the Node SDK's overhead on GET /api/v2/me (node dist/main.js on PGlite in a child process, ${apiKeys.length} accounts), ` +
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
    const layers = await layersAlone(meUrl, apiKeys[0] ?? "", url);
    console.log("");
    console.log(
      `The client's own work alone (a fetch in this process answering the API's captured /me at once, ` +
        `${layerCallsPerRun} calls per run, ${rounds} interleaved rounds; VERBATIM_BENCH_SDK_LAYER_CALLS to change): ` +
        `bare ${layers.bareUs.toFixed(1)} µs, SDK ${layers.sdkUs.toFixed(1)} µs of CPU per call, ` +
        `${(layers.sdkUs - layers.bareUs).toFixed(1)} µs more.`,
    );
  } finally {
    await target.close();
    removeDataDir();
  }
}

/**
 * The client CPU per call of the bare parse and of `verbatim.me()` on a fetch that answers the API's
 * captured `/me` at once: no socket and no server, only what each caller does around the answer.
 */
async function layersAlone(meUrl: string, apiKey: string, baseUrl: string): Promise<{ bareUs: number; sdkUs: number }> {
  const captured = await fetch(meUrl, { headers: { authorization: `Bearer ${apiKey}` } });
  const body = await captured.text();
  const headers = [...captured.headers];
  const answerAtOnce = (async () => new Response(body, { status: captured.status, headers })) as typeof fetch;
  const bare: Caller = async () => {
    const response = await answerAtOnce(meUrl, { headers: { authorization: `Bearer ${apiKey}` } });
    const parsed = (await response.json()) as { ok?: boolean };
    if (parsed.ok !== true) throw new Error(`GET /me answered ${response.status}`);
  };
  const verbatim = new Verbatim({ apiKey, baseUrl, maxRetries: 0, fetch: answerAtOnce });
  const sdk: Caller = async () => {
    await verbatim.me();
  };
  await measure(bare, layerCallsPerRun);
  await measure(sdk, layerCallsPerRun);
  let bareMs = 0;
  let sdkMs = 0;
  for (let round = 0; round < rounds; round += 1) {
    bareMs += (await measure(bare, layerCallsPerRun)).clientCpuMs;
    sdkMs += (await measure(sdk, layerCallsPerRun)).clientCpuMs;
  }
  const perCallUs = (ms: number) => (ms / (rounds * layerCallsPerRun)) * 1000;
  return { bareUs: perCallUs(bareMs), sdkUs: perCallUs(sdkMs) };
}

/** A ratio as a signed percentage with one decimal. */
function percent(ratio: number): string {
  return `${ratio >= 0 ? "+" : ""}${(ratio * 100).toFixed(1)} %`;
}

await main();
