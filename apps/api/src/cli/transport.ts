import { existsSync } from "node:fs";
import { request } from "node:http";
import type { AdminCommand } from "../admin/commands.ts";
import { runAdminCommand } from "../admin/commands.ts";
import type { AdminReply } from "../admin/server.ts";
import { createPlatform } from "../assembly/platform.ts";
import type { Config } from "../config.ts";
import { adminSocketPath, DataDirectoryBusyError, openConfiguredStore } from "../store/open.ts";

/** A command failed: the message to print and exit with. */
export class CommandError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Runs a command where the data is: on PostgreSQL directly; with the embedded store, through
 * the running service's admin socket, or on the data directory itself when no service runs.
 */
export async function execute(config: Config, command: AdminCommand): Promise<unknown> {
  const socketPath = adminSocketPath(config.dataDir);
  if (!config.databaseUrl && existsSync(socketPath)) {
    const reply = await viaSocket(socketPath, command).catch(() => undefined);
    if (reply) return unwrap(reply);
  }
  return directly(config, command);
}

async function directly(config: Config, command: AdminCommand): Promise<unknown> {
  let store: Awaited<ReturnType<typeof openConfiguredStore>>;
  try {
    store = await openConfiguredStore(config);
  } catch (error) {
    if (error instanceof DataDirectoryBusyError) {
      throw new CommandError(
        "busy",
        `A Verbatim service holds ${config.dataDir} but its admin socket does not answer; is it still starting?`,
      );
    }
    throw error;
  }
  try {
    const platform = await createPlatform(store, { now: () => new Date() });
    try {
      return await runAdminCommand(platform, command);
    } catch (error) {
      if (error instanceof Error && "code" in error && typeof error.code === "string") {
        throw new CommandError(error.code, error.message);
      }
      throw error;
    }
  } finally {
    await store.close();
  }
}

function viaSocket(socketPath: string, command: AdminCommand): Promise<AdminReply> {
  return new Promise((resolve, reject) => {
    const req = request(
      { socketPath, path: "/commands", method: "POST", headers: { "content-type": "application/json" } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")) as AdminReply);
          } catch (error) {
            reject(error);
          }
        });
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(command));
  });
}

function unwrap(reply: AdminReply): unknown {
  if (reply.ok) return reply.result;
  throw new CommandError(reply.error.code, reply.error.message);
}
