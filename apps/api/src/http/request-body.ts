import express, { type NextFunction, type RequestHandler, type Response } from "express";
import { ApiError } from "../errors.ts";

/** How much of a body an operation reads, and for how long. */
export interface BodyLimits {
  /** The most bytes the body may hold, as sent and once decoded. */
  maxBytes: number;
  /** How long the body may take to arrive, from when the operation starts reading it. */
  deadlineMs: number;
}

/** An operation anyone may call: its fields are a key or a token of a few dozen characters. */
export const publicBodyLimits: BodyLimits = { maxBytes: 1024, deadlineMs: 10_000 };

/** An operation behind a key: at the slowest it takes, 1 MiB arrives at about 17 KiB/s. */
export const authenticatedBodyLimits: BodyLimits = { maxBytes: 1024 * 1024, deadlineMs: 60_000 };

/**
 * Reads and parses a JSON body within its limits, and stops reading as soon as it cannot be
 * met: a `Content-Length` over the limit is refused unread, a body that grows past it or is
 * still arriving at the deadline is refused there, and the answer closes the connection so the
 * rest is never read. A body-parser refusal waits for the whole body first, so it cannot be
 * left to answer these.
 */
export function readJsonBody(limits: BodyLimits): RequestHandler {
  const parseJson = express.json({ limit: limits.maxBytes });
  return (req, res, next) => {
    if (Number(req.get("content-length")) > limits.maxBytes) {
      refuse(res, next, bodyTooLarge(limits.maxBytes));
      return;
    }
    let settled = false;
    let received = 0;
    let deadline: NodeJS.Timeout | undefined;
    function settle(): boolean {
      if (settled) return false;
      settled = true;
      clearTimeout(deadline);
      req.off("data", countBytes);
      return true;
    }
    function refuseOnce(error: ApiError): void {
      if (settle()) refuse(res, next, error);
    }
    function countBytes(chunk: Buffer): void {
      received += chunk.length;
      if (received > limits.maxBytes) refuseOnce(bodyTooLarge(limits.maxBytes));
    }
    let parserStarting = true;
    parseJson(req, res, (err?: unknown) => {
      if (!settle()) return;
      // The parser took none of the body (it is not JSON, which validation refuses): none of the rest is read either.
      if (parserStarting && !req.complete) res.setHeader("Connection", "close");
      next(err);
    });
    parserStarting = false;
    if (settled) return;
    req.on("data", countBytes);
    deadline = setTimeout(() => refuseOnce(bodyTooSlow(limits.deadlineMs)), limits.deadlineMs);
  };
}

/** 413 `invalid_request`: the body holds more than the operation reads. */
export function bodyTooLarge(maxBytes: number): ApiError {
  const size = sizeOf(maxBytes);
  return new ApiError("invalid_request", `The body is larger than ${size}.`, {
    extra: { issues: [{ path: "/body", message: `must not be larger than ${size}` }] },
    status: 413,
  });
}

function bodyTooSlow(deadlineMs: number): ApiError {
  const seconds = deadlineMs / 1000;
  return new ApiError("invalid_request", `The body did not arrive within ${seconds} seconds.`, {
    extra: { issues: [{ path: "/body", message: `must arrive within ${seconds} seconds` }] },
  });
}

/** Answers through the error handler, and closes the connection after the answer instead of reading the rest. */
function refuse(res: Response, next: NextFunction, error: ApiError): void {
  res.setHeader("Connection", "close");
  next(error);
}

function sizeOf(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}
