import type { RequestHandler } from "express";
import { newId } from "../ids.ts";

/** Gives every request an id, sent as `X-Request-Id` on every response and as the envelope's `request_id`. */
export function assignRequestId(): RequestHandler {
  return (_req, res, next) => {
    const requestId = newId("req");
    res.locals.requestId = requestId;
    res.setHeader("X-Request-Id", requestId);
    next();
  };
}
