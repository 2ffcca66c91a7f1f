import type { OperationId, ResponseBody } from "@verbatim/contract";
import type { Request, RequestHandler, Response } from "express";
import { requestIdOf } from "./locals.ts";

/** A live operation: its id in the contract and the handler that serves it. */
export interface LiveRoute {
  operationId: OperationId;
  handler: RequestHandler;
}

/** Sends a response body typed by the contract for the operation and status. */
export function send<Op extends OperationId, Status extends number>(
  res: Response,
  _operationId: Op,
  status: Status,
  body: ResponseBody<Op, Status>,
): void {
  res.status(status).json(body);
}

/** The request id as the envelope carries it. */
export function envelopeRequestId(res: Response): string {
  return requestIdOf(res);
}

/** The validated JSON body of a request. */
export function bodyOf<T>(req: Request): T {
  return req.body as T;
}
