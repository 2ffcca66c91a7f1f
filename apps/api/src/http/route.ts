import type { OperationId, ResponseBody } from "@verbatim/contract";
import type { Request, RequestHandler, Response } from "express";
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
