import type { Request, Response } from "express";

/** The request's id, assigned before anything else runs. */
export function requestIdOf(res: Response): string {
  return res.locals.requestId as string;
}

/** The base of `error.docs` links: the configured public address, or the address the request came to. */
export function publicBaseUrl(req: Request, configured: string | undefined): string {
  return configured ?? `${req.protocol}://${req.get("host") ?? "localhost"}`;
}
