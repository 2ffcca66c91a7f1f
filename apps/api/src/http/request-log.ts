import type { RequestHandler } from "express";
import type { Logger } from "../logger.ts";

/**
 * One log line per request when its response ends, as pino-http wrote it: `req` (method and URL,
 * never headers: they carry API keys), `res` (status) and `responseTime`, at `error` for a failure or
 * a 5xx and `info` otherwise. Nothing is built for a level the logger does not write, and no child
 * logger per request: pino-http serialised both on every request whatever the level.
 */
export function logRequests(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = Date.now();
    const url = req.originalUrl;
    const done = (err?: Error) => {
      res.off("finish", done);
      res.off("close", done);
      res.off("error", done);
      const failed = err !== undefined || res.statusCode >= 500;
      const level = failed ? "error" : "info";
      if (!logger.isLevelEnabled(level)) return;
      const line = {
        req: { method: req.method, url },
        res: { status: res.statusCode },
        responseTime: Date.now() - started,
      };
      if (failed) {
        logger.error(
          { ...line, err: err ?? new Error(`failed with status code ${res.statusCode}`) },
          "request errored",
        );
        return;
      }
      logger.info(line, !req.readableAborted && res.writableEnded ? "request completed" : "request aborted");
    };
    res.on("finish", done);
    res.on("close", done);
    res.on("error", done);
    next();
  };
}
