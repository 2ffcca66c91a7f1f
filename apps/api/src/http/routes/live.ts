import type { Request, Response } from "express";
import { usageBlock } from "../../services/accounts/index.ts";
import type { LiveCreateInput, LiveSessions, LiveStreamMessage } from "../../services/live/index.ts";
import type { AppDeps } from "../app-deps.ts";
import { authOf, publicBaseUrl, requestIdOf } from "../locals.ts";
import { defaultEventStreamsPerAccount, OpenEventStreams } from "../open-event-streams.ts";
import { bodyOf, type LiveRoute, sendOk } from "../route.ts";

type LiveStatusQuery = "waiting" | "live" | "ended" | "stopped" | "failed";

/**
 * The five `/live` operations over the live session service. Starting a session resolves its
 * stream upstream, so it holds an extraction slot like any request that does; the others read the
 * store, and the event stream stays open as long as the session runs.
 */
export function liveSessionRoutes(deps: AppDeps, live: LiveSessions): LiveRoute[] {
  const openStreams = new OpenEventStreams(deps.config.liveEventStreamsPerAccount ?? defaultEventStreamsPerAccount);
  return [
    {
      operationId: "createLiveSession",
      holdsExtractionSlot: true,
      handler: async (req, res) => {
        const auth = authOf(res);
        const closed = abortOnClose(req, res);
        const session = await live.create(
          {
            accountId: auth.accountId,
            plan: auth.plan,
            requestId: requestIdOf(res),
            docsBaseUrl: publicBaseUrl(req, deps.config.publicUrl),
            signal: closed.signal,
          },
          bodyOf<LiveCreateInput>(req),
        );
        sendOk(res, "createLiveSession", 202, { data: session, usage: usageBlock(0, auth.credits) });
      },
    },
    {
      operationId: "listLiveSessions",
      handler: async (req, res) => {
        const auth = authOf(res);
        const { limit, cursor, status } = req.query as { limit?: number; cursor?: string; status?: LiveStatusQuery };
        const page = await live.list(auth.accountId, auth.plan, {
          limit: limit ?? 20,
          ...(cursor ? { cursor } : {}),
          ...(status ? { status } : {}),
        });
        sendOk(res, "listLiveSessions", 200, {
          data: {
            kind: "live_session_list",
            sessions: page.sessions,
            next_cursor: page.nextCursor,
            limits: page.limits,
          },
          usage: usageBlock(0, auth.credits),
        });
      },
    },
    {
      operationId: "getLiveSession",
      handler: async (req, res) => {
        const auth = authOf(res);
        const { after, limit } = req.query as { after?: number; limit?: number };
        const session = await live.get(auth.accountId, sessionIdOf(req), { after: after ?? 0, limit: limit ?? 100 });
        sendOk(res, "getLiveSession", 200, { data: session, usage: usageBlock(0, auth.credits) });
      },
    },
    {
      operationId: "streamLiveEvents",
      handler: async (req, res) => {
        const auth = authOf(res);
        const session = await live.owned(auth.accountId, sessionIdOf(req));
        const lastEventId = Number(req.get("last-event-id") ?? 0);
        const release = openStreams.admit(auth.accountId);
        const closed = abortOnClose(req, res);
        try {
          res.status(200);
          res.setHeader("Content-Type", "text/event-stream; charset=utf-8");
          res.setHeader("Cache-Control", "no-cache, no-transform");
          // Proxies that buffer answers (nginx) would hold the events back.
          res.setHeader("X-Accel-Buffering", "no");
          res.flushHeaders();
          for await (const message of live.stream(session, lastEventId, closed.signal)) {
            if (!res.write(serverSentEvent(message))) await waitForDrain(res, closed.signal);
          }
        } catch (err) {
          // The answer has begun: a failure can only end it; the client reconnects with Last-Event-ID.
          deps.logger.warn({ err, live_session: session.id }, "a live event stream broke off");
        } finally {
          release();
          res.end();
        }
      },
    },
    {
      operationId: "stopLiveSession",
      handler: async (req, res) => {
        const auth = authOf(res);
        const session = await live.stop(auth.accountId, sessionIdOf(req));
        sendOk(res, "stopLiveSession", 200, { data: session, usage: usageBlock(0, auth.credits) });
      },
    },
  ];
}

/** One message in the `text/event-stream` format: a durable event with its `id`, a partial without, or a comment. */
function serverSentEvent(message: LiveStreamMessage): string {
  if (message.kind === "keep-alive") return ": keep-alive\n\n";
  const id = message.seq === null ? "" : `id: ${message.seq}\n`;
  return `${id}event: ${message.type}\ndata: ${JSON.stringify(message.data)}\n\n`;
}

/** Aborts when the client goes away before the answer is complete. */
function abortOnClose(req: Request, res: Response): AbortController {
  const controller = new AbortController();
  res.once("close", () => controller.abort());
  req.once("aborted", () => controller.abort());
  return controller;
}

function waitForDrain(res: Response, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      signal.removeEventListener("abort", done);
      resolve();
    };
    res.once("drain", done);
    signal.addEventListener("abort", done, { once: true });
  });
}

function sessionIdOf(req: Request): string {
  return String(req.params.sessionId);
}
