import { type NodeProcess, spawnNodeScript } from "../support/node-process.ts";

/** `src/main.ts` running as a child process, as an operator starts it. */
export type ServiceProcess = NodeProcess;

/** Starts `node --import tsx src/main.ts` in the API package with these variables added to the environment. */
export function startServiceProcess(env: Record<string, string>): ServiceProcess {
  return spawnNodeScript("src/main.ts", [], env);
}

/** The base URL a service process logged when it began listening. */
export async function listeningUrl(service: ServiceProcess, timeoutMs = 30_000): Promise<string> {
  const line = await service.waitForLine(/Verbatim listening on http:\/\/127\.0\.0\.1:\d+/, timeoutMs);
  const port = /http:\/\/127\.0\.0\.1:(\d+)/.exec(line)?.[1];
  return `http://127.0.0.1:${port}`;
}
