import type { OperationId, ResponseBody } from "@verbatim/contract";
import express, { type Request, type RequestHandler, type Response } from "express";
import type { TranscriptRenderings } from "../services/renderings/index.ts";
import { requestIdOf } from "./locals.ts";

/** A live operation: its id in the contract and the handler that serves it. */
export interface LiveRoute<Id extends string = OperationId> {
  operationId: Id;
  handler: RequestHandler;
  /** Middleware the operation needs after authentication and idempotency. */
  guards?: RequestHandler[];
  /** Whether the operation holds one of the account's extraction slots while it runs (docs/decisions.md, rule 7). */
  holdsExtractionSlot?: boolean;
}

/** Sends a body typed by the contract as it is: the job poll's, whose 200 may say `ok: false`. */
export function send<Op extends OperationId, Status extends number>(
  res: Response,
  _operationId: Op,
  status: Status,
  body: ResponseBody<Op, Status>,
): void {
  res.status(status).json(body);
}

/** A success body without the fields every one carries first, `ok` and `request_id`. */
export type SuccessFields<Op extends OperationId, Status extends number> =
  ResponseBody<Op, Status> extends infer Body
    ? Body extends unknown
      ? Omit<Body, "ok" | "request_id">
      : never
    : never;

/**
 * Sends the success envelope of the operation and status, typed by the contract: `ok` and the
 * request's id, then what the handler answers (`data`, `usage`, and a job's fields), in that order.
 */
export function sendOk<Op extends OperationId, Status extends number>(
  res: Response,
  _operationId: Op,
  status: Status,
  fields: SuccessFields<Op, Status>,
): void {
  res.status(status).json({ ok: true, request_id: requestIdOf(res), ...fields });
}

/** Success fields whose `data` lacks the renderings of a transcript, which come serialised apart. */
export type FieldsBesideRenderings<Fields> = Fields extends { data: infer Data }
  ? Omit<Fields, "data"> & { data: Data extends unknown ? Omit<Data, keyof TranscriptRenderings> : never }
  : never;

/**
 * Sends the success envelope of a transcript whose renderings' fields were serialised on a
 * rendering thread (`TranscriptRenderer`): the bytes `sendOk` would send for `data` with those
 * fields last, written as they are, never parsed or serialised again on the event loop.
 */
export function sendOkRendered<Op extends OperationId, Status extends number>(
  res: Response,
  _operationId: Op,
  status: Status,
  fields: FieldsBesideRenderings<SuccessFields<Op, Status>>,
  renderings: Uint8Array,
): void {
  const { data, ...rest } = fields as { data: object };
  const head = JSON.stringify({ ok: true, request_id: requestIdOf(res), data });
  // `head` ends with the braces closing `data` and the envelope; the renderings follow the last field of `data`.
  const opening = Buffer.from(`${head.slice(0, -2)},`);
  const closing = Buffer.from(`},${JSON.stringify(rest).slice(1)}`);
  res
    .status(status)
    .type("json")
    .setHeader("Content-Length", opening.length + renderings.byteLength + closing.length);
  res.write(opening);
  res.write(renderings);
  res.end(closing);
}

/** Whether something reads the body as an object on its way out (an Idempotency-Key's stored answer, v1's shape, response validation). */
export function isJsonWrapped(res: Response): boolean {
  return res.json !== express.response.json;
}

/** The validated JSON body of a request. */
export function bodyOf<T>(req: Request): T {
  return req.body as T;
}

/** Remembers which top-level body fields the client sent, before request validation fills in defaults. */
export function recordSentBodyFields(): RequestHandler {
  return (req, res, next) => {
    const body: unknown = req.body;
    res.locals.sentBodyFields = new Set(
      typeof body === "object" && body !== null && !Array.isArray(body) ? Object.keys(body) : [],
    );
    next();
  };
}

/** Whether the client sent this top-level body field (not a default filled in by validation). */
export function wasSent(res: Response, field: string): boolean {
  return (res.locals.sentBodyFields as Set<string> | undefined)?.has(field) ?? false;
}
