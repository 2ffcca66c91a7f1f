import { spawnVerbatim } from "@verbatim/testkit";
import type { NodeProcess } from "@verbatim/testkit/node-process";
import { apiPackage } from "../support/api-package.ts";
import type { Loose } from "./requests.ts";

/** `src/main.ts` running as a child process, as an operator starts it. */
export type ServiceProcess = NodeProcess;

/** Starts this package's service with these variables added to the environment, as testkit's `startVerbatim` does. */
export function startServiceProcess(env: Record<string, string>): ServiceProcess {
  return spawnVerbatim(apiPackage, env);
}

/** The base URL a service process logged when it began listening. */
export async function listeningUrl(service: ServiceProcess, timeoutMs = 30_000): Promise<string> {
  const line = await service.waitForLine(/Verbatim listening on http:\/\/127\.0\.0\.1:\d+/, timeoutMs);
  const port = /http:\/\/127\.0\.0\.1:(\d+)/.exec(line)?.[1];
  return `http://127.0.0.1:${port}`;
}

/** Settings the job tests' service processes run with: fast polling, the shortest heartbeat pg-boss allows, one worker. */
export const jobServiceEnvironment = {
  VERBATIM_ALLOW_PRIVATE_TARGETS: "1",
  VERBATIM_INLINE_AUDIO_SECONDS: "0",
  VERBATIM_JOB_POLL_SECONDS: "0.5",
  VERBATIM_JOB_HEARTBEAT_SECONDS: "10",
  VERBATIM_WORKERS: "1",
  VERBATIM_LOG_LEVEL: "info",
  PORT: "0",
};

/** A client of a service process: where it listens, and the key it sends. */
export interface ServiceClient {
  baseUrl: string;
  apiKey: string;
}

/** Sends a JSON request with the client's key; answers the body with its HTTP status as `http_status`. */
export async function request(client: ServiceClient, method: string, path: string, body?: unknown): Promise<Loose> {
  const response = await fetch(`${client.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${client.apiKey}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { http_status: response.status, ...((await response.json()) as object) };
}
