import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.ts";
import { type PgBoss, startJobQueue, transcriptionQueueName } from "../../src/queue/job-queue.ts";
import { HeartbeatWriter, heartbeatFreshSeconds } from "../../src/services/operations/worker-heartbeats.ts";
import { transcriptionQueues } from "../../src/workers/transcription-queue.ts";
import { startServer, type TestServer } from "../support/server.ts";

/** The deep health check, reading the workers' heartbeats against a clock the test moves. */
describe("GET /health/deep: queue depth and worker heartbeats", () => {
  let clock = new Date("2026-11-25T10:00:00.000Z");
  const now = () => clock;
  let server: TestServer;
  let boss: PgBoss;
  const writers: HeartbeatWriter[] = [];

  beforeAll(async () => {
    server = await startServer({ now, plan: "pro" });
    boss = await startJobQueue(
      server.platform.store,
      transcriptionQueues({ heartbeatSeconds: 10, retryLimit: 2 }),
      createLogger("silent"),
    );
  });
  afterAll(async () => {
    for (const writer of writers) await writer.stop();
    await boss?.stop({ graceful: false, close: false });
    await server?.close();
  });

  function writer(): HeartbeatWriter {
    // Beats only when the test says: a timer would beat at the moved clock and hide a stale worker.
    const created = new HeartbeatWriter(server.platform.store, {
      now,
      logger: createLogger("silent"),
      intervalMs: 3_600_000,
    });
    writers.push(created);
    return created;
  }

  async function deepHealth() {
    const result = await server.client.GET("/health/deep");
    expect(result.response.status, JSON.stringify(result.error)).toBe(200);
    const data = result.data?.data;
    if (!data) throw new Error("no data");
    return data;
  }

  it("is ok with an empty queue and no worker, and lists every queue", async () => {
    const health = await deepHealth();
    expect(health.status).toBe("ok");
    expect(health.workers).toEqual([]);
    expect(health.queues).toEqual([
      { name: "transcribe-audio", queued: 0, active: 0, oldest_queued_seconds: 0 },
      { name: "transcribe-audio-abandoned", queued: 0, active: 0, oldest_queued_seconds: 0 },
    ]);
    expect(health.checks.find((check) => check.name === "workers")).toMatchObject({ status: "ok", detail: null });
  });

  it("degrades when jobs are queued and no worker has reported, naming the queued jobs", async () => {
    await boss.send(transcriptionQueueName, { jobId: "job_one" });
    await boss.send(transcriptionQueueName, { jobId: "job_two" });
    const health = await deepHealth();
    expect(health.queues[0]).toMatchObject({ name: "transcribe-audio", queued: 2, active: 0 });
    expect(health.status).toBe("degraded");
    expect(health.checks.find((check) => check.name === "workers")).toMatchObject({
      status: "failing",
      detail: `2 job(s) queued and no worker process has reported within ${heartbeatFreshSeconds} s.`,
    });
  });

  it("is ok again once a worker process writes its heartbeat, which it reports", async () => {
    const worker = writer();
    await worker.start();
    const health = await deepHealth();
    expect(health.status).toBe("ok");
    expect(health.workers).toEqual([
      {
        id: worker.id,
        started_at: "2026-11-25T10:00:00.000Z",
        last_heartbeat_at: "2026-11-25T10:00:00.000Z",
        fresh: true,
      },
    ]);
    expect(worker.id).toMatch(/^wrk_[0-9A-Z]{26}$/);
  });

  it("reports a worker whose heartbeat is older than the freshness window as stale, and degrades", async () => {
    clock = new Date(clock.getTime() + (heartbeatFreshSeconds + 1) * 1000);
    const health = await deepHealth();
    expect(health.workers).toHaveLength(1);
    expect(health.workers[0]?.fresh).toBe(false);
    expect(health.status).toBe("degraded");
  });

  it("counts a claimed job as active, not queued", async () => {
    const [claimed] = await boss.fetch(transcriptionQueueName);
    expect(claimed).toBeDefined();
    const health = await deepHealth();
    expect(health.queues[0]).toMatchObject({ queued: 1, active: 1 });
  });

  it("is ok while another fresh worker beats, and forgets a worker that stopped cleanly", async () => {
    const second = writer();
    await second.start();
    const before = await deepHealth();
    expect(before.status).toBe("ok");
    expect(before.workers.map((worker) => [worker.id, worker.fresh])).toEqual([
      [second.id, true],
      [writers[0]?.id, false],
    ]);
    await second.stop();
    const rows = await server.platform.store.query<{ id: string }>(sql`select id from worker_heartbeats`);
    expect(rows.map((row) => row.id)).toEqual([writers[0]?.id]);
    expect((await deepHealth()).status).toBe("degraded");
  });
});
