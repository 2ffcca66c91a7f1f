import { chmodSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { ApiError } from "../errors.ts";
import type { Logger } from "../logger.ts";
import type { Platform } from "../services/process-services.ts";
import { type AdminCommand, runAdminCommand } from "./commands.ts";

/** What the admin socket answers: the command's result, or why it failed. */
export type AdminReply = { ok: true; result: unknown } | { ok: false; error: { code: string; message: string } };

/**
 * Serves operator commands on a Unix socket only the service's user can open. With the embedded
 * store, the CLI reaches the database through it, because PGlite admits one process.
 */
export async function startAdminServer(platform: Platform, socketPath: string, logger: Logger): Promise<Server> {
  const server = createServer(async (req, res) => {
    const reply = await answer(platform, req, logger);
    res.writeHead(reply.ok ? 200 : 400, { "content-type": "application/json" }).end(JSON.stringify(reply));
  });
  // The socket file of a service that died is left behind; we hold the data directory's lock, so it is stale.
  rmSync(socketPath, { force: true });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  chmodSync(socketPath, 0o600);
  server.on("close", () => rmSync(socketPath, { force: true }));
  return server;
}

async function answer(
  platform: Platform,
  req: import("node:http").IncomingMessage,
  logger: Logger,
): Promise<AdminReply> {
  if (req.method !== "POST" || req.url !== "/commands") {
    return { ok: false, error: { code: "not_found", message: "POST /commands only." } };
  }
  try {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const command = JSON.parse(Buffer.concat(chunks).toString("utf8")) as AdminCommand;
    return { ok: true, result: await runAdminCommand(platform, command) };
  } catch (error) {
    if (error instanceof ApiError) return { ok: false, error: { code: error.code, message: error.message } };
    logger.error({ err: error }, "admin command failed");
    return {
      ok: false,
      error: { code: "internal_error", message: error instanceof Error ? error.message : String(error) },
    };
  }
}
