import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { seedDataDirectory } from "@verbatim/testkit/store-template";
import { expect } from "vitest";
import type { Loose } from "../audio/requests.ts";
import {
  listeningUrl,
  request,
  type ServiceClient,
  type ServiceProcess,
  startServiceProcess,
} from "../audio/service-process.ts";
import { createPostgresDatabase } from "../support/store.ts";

/**
 * How long a service process may take to start: seconds on an idle machine, but tsx compiles
 * main.ts's imports first, which takes far longer when other test files load every core.
 */
export const serviceStartTimeoutMs = 180_000;

/** Where service processes keep their data on the engine the tests run on, and its removal. */
export interface ServiceStorage {
  env: Record<string, string>;
  remove(): Promise<void>;
}

/**
 * A fresh database on the PostgreSQL of `DATABASE_URL`, or else a PGlite data directory of its
 * own (with `DATABASE_URL` emptied, so the process opens PGlite whatever the parent has).
 */
export async function serviceStorage(): Promise<ServiceStorage> {
  const serverUrl = process.env.DATABASE_URL;
  if (serverUrl) {
    const database = await createPostgresDatabase(serverUrl);
    return { env: { DATABASE_URL: database.url }, remove: () => database.drop() };
  }
  const dataDir = await mkdtemp(join(tmpdir(), "verbatim-platforms-"));
  seedDataDirectory(dataDir);
  return {
    env: { VERBATIM_DATA_DIR: dataDir, DATABASE_URL: "" },
    remove: () => rm(dataDir, { recursive: true, force: true }),
  };
}

/** A service process that serves the API, and a client with the key it printed on its first start. */
export interface ApiService {
  service: ServiceProcess;
  client: ServiceClient;
}

/** Starts `src/main.ts` serving the API (on a fresh store it creates the development account and prints its key). */
export async function startApiService(env: Record<string, string>): Promise<ApiService> {
  const service = startServiceProcess(env);
  try {
    const apiKey = (await service.waitForLine(/^\s+vb_live_/, serviceStartTimeoutMs)).trim();
    return { service, client: { baseUrl: await listeningUrl(service, serviceStartTimeoutMs), apiKey } };
  } catch (error) {
    await service.kill("SIGKILL");
    throw error;
  }
}

/** Polls a job every 250 ms until it leaves `processing`; answers its last state. */
export async function pollJob(client: ServiceClient, pollUrl: string, timeoutMs = 90_000): Promise<Loose> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await request(client, "GET", pollUrl);
    expect(job.http_status, JSON.stringify(job)).toBe(200);
    if (job.status !== "processing") return job;
    if (Date.now() > deadline) throw new Error(`job still processing after ${timeoutMs} ms: ${JSON.stringify(job)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The `video_platforms` check of `GET /api/v2/health/deep`, and the overall status. */
export async function videoPlatformsHealth(client: ServiceClient): Promise<{ status: string; check: Loose }> {
  const health = await request(client, "GET", "/api/v2/health/deep");
  expect(health.http_status, JSON.stringify(health)).toBe(200);
  const check = health.data.checks.find((candidate: Loose) => candidate.name === "video_platforms");
  expect(check, JSON.stringify(health.data.checks)).toBeDefined();
  return { status: health.data.status, check };
}
