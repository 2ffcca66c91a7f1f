import { audioFixture } from "@verbatim/testkit/fake-podcast-host";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SpeechEngine, SpeechTranscript, TranscribeOptions } from "../../src/adapters/asr/index.ts";
import { plans } from "../../src/services/accounts/plans.ts";
import { ledgerOf } from "../platform/helpers.ts";
import { expectErrorEnvelope } from "../support/http.ts";
import type { TestServer } from "../support/server.ts";
import { type AudioServer, sharedEngine, startAudioServer } from "./harness.ts";
import { expectJobAccepted, fetchTranscript, type Loose, pollUntilFinished } from "./requests.ts";

/** The real engine, holding each transcription a while longer, and counting how many run at once. */
class ConcurrencyCountingEngine implements SpeechEngine {
  readonly info = sharedEngine.info;
  running = 0;
  mostAtOnce = 0;

  constructor(private readonly holdMs: number) {}

  async transcribe(samples: AsyncIterable<Float32Array>, options?: TranscribeOptions): Promise<SpeechTranscript> {
    this.running++;
    this.mostAtOnce = Math.max(this.mostAtOnce, this.running);
    try {
      const transcript = await sharedEngine.transcribe(samples, options);
      await new Promise((resolve) => setTimeout(resolve, this.holdMs));
      return transcript;
    } finally {
      this.running--;
    }
  }

  check(): Promise<void> {
    return sharedEngine.check();
  }
}

describe("503 overloaded: admission closes when the queue holds the configured most jobs", () => {
  let server: AudioServer;

  beforeAll(async () => {
    // No workers: accepted jobs stay queued.
    server = await startAudioServer({ inlineAudioSeconds: 0, maxQueuedJobs: 2, workers: 0 });
    server.host.serveFile("/media/jfk.wav", audioFixture("whisper-cpp/jfk.wav"), "audio/wav");
  });
  afterAll(() => server?.close());

  it("accepts jobs up to VERBATIM_MAX_QUEUED_JOBS, then refuses with Retry-After, charging nothing", async () => {
    const balance = await server.platform.credits.balance(server.account.id);
    for (const copy of [1, 2]) {
      expectJobAccepted(await fetchTranscript(server, { video: server.host.url(`/media/jfk.wav?copy=${copy}`) }), {
        platform: "file",
        balance,
      });
    }
    const refused = await fetchTranscript(server, { video: server.host.url("/media/jfk.wav?copy=3") });
    expectErrorEnvelope(refused, 503, "overloaded");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    const [row] = await server.store.query<{ jobs: number }>(sql`select count(*)::int as jobs from transcript_jobs`);
    expect(row?.jobs).toBe(2);
    expect(await ledgerOf(server.store, server.account.id)).toEqual([expect.objectContaining({ kind: "grant" })]);
  });
});

describe("per-account concurrency by plan, across the process's workers", () => {
  let server: AudioServer;
  // Each job holds its worker 3 s after recognising, so jobs that may overlap do even on a loaded machine.
  const engine = new ConcurrencyCountingEngine(3_000);

  beforeAll(async () => {
    // More workers than the Free plan may use, so only the plan's limit can hold the jobs back.
    server = await startAudioServer({ inlineAudioSeconds: 0, workers: 4, engine });
    server.host.serveFile("/media/jfk.wav", audioFixture("whisper-cpp/jfk.wav"), "audio/wav");
  });
  afterAll(() => server?.close());

  async function runJobsOf(client: TestServer, count: number, tag: string): Promise<void> {
    const pollUrls: string[] = [];
    for (let index = 0; index < count; index++) {
      const answer = await fetchTranscript(client, { video: server.host.url(`/media/jfk.wav?${tag}=${index}`) });
      expect(answer.status, answer.text).toBe(202);
      pollUrls.push((answer.body as Loose).poll_url);
    }
    // A poll of each job every 2 s stays within the Free plan's 120 polls a minute however long the jobs take.
    const finished = await Promise.all(pollUrls.map((url) => pollUntilFinished(client, url, 60_000, 2_000)));
    for (const { answer } of finished) expect((answer.body as Loose).status, answer.text).toBe("completed");
  }

  it(`runs at most ${plans.free.batchWorkers} jobs of a Free account at once, with ${plans.free.batchWorkers + 1} queued`, async () => {
    const { key } = await server.platform.accounts.create({ plan: "free", name: "free plan" });
    engine.mostAtOnce = 0;
    await runJobsOf({ ...server, key: { ...server.key, key: key.key } }, plans.free.batchWorkers + 1, "free");
    expect(engine.mostAtOnce).toBe(plans.free.batchWorkers);
  }, 60_000);

  it(`runs ${plans.pro.batchWorkers} jobs of a Pro account at once`, async () => {
    engine.mostAtOnce = 0;
    await runJobsOf(server, plans.pro.batchWorkers, "pro");
    expect(engine.mostAtOnce).toBe(plans.pro.batchWorkers);
  }, 60_000);
});
