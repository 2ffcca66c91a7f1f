// What middleware keeps on `res.locals` for the code after it. Middleware and routes read and write
// it only through here, so neither needs the other's module (`auth.ts` takes slots, `slots.ts` reads
// the authentication).
import { isIPv6 } from "node:net";
import type { Request, Response } from "express";
import type { Allowance, Authentication, HeldSlot } from "../services/accounts/index.ts";

/** The request's id, assigned before anything else runs. */
export function requestIdOf(res: Response): string {
  return res.locals.requestId as string;
}

/** The authentication of the request; set by `authenticate`. */
export function authOf(res: Response): Authentication {
  const auth = optionalAuthOf(res);
  if (!auth) throw new Error("route needs authentication but none ran");
  return auth;
}

/** The authentication of the request, if one ran: an error may be answered before any did. */
export function optionalAuthOf(res: Response): Authentication | undefined {
  return res.locals.auth as Authentication | undefined;
}

export function keepAuth(res: Response, auth: Authentication): void {
  res.locals.auth = auth;
}

/** The allowance that admitted the request; set by `authenticate`. */
export function allowanceOfRequest(res: Response): Allowance {
  return res.locals.allowance as Allowance;
}

export function keepAllowance(res: Response, allowance: Allowance): void {
  res.locals.allowance = allowance;
}

/** The dashboard session that authenticated the request, if one did (not an API key). */
export function dashboardSessionOf(res: Response): string | undefined {
  return res.locals.dashboardSession as string | undefined;
}

export function keepDashboardSession(res: Response, sessionId: string): void {
  res.locals.dashboardSession = sessionId;
}

/** The API key `requireApiKey` checked, for a route that counts its requests itself. */
export function apiKeyOf(res: Response): string {
  return res.locals.apiKey as string;
}

export function keepApiKey(res: Response, key: string): void {
  res.locals.apiKey = key;
}

/** The extraction slot the request holds, if it holds one. */
export function slotOf(res: Response): HeldSlot | undefined {
  return res.locals.slot as HeldSlot | undefined;
}

export function keepSlot(res: Response, slot: HeldSlot): void {
  res.locals.slot = slot;
}

/** A host name, an IPv4 address or a bracketed IPv6 address, with an optional port: nothing that needs escaping. */
const wellFormedHost = /^(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*\.?|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/**
 * The base of `error.docs` links, job `poll_url`s and webhook bodies: the configured public
 * address (`VERBATIM_PUBLIC_URL`, for any deployment behind a proxy), or the address the request
 * came to. The `Host` and `X-Forwarded-Proto` headers are the client's words, so only an
 * http(s) protocol and a well-formed host are taken from them; otherwise the address the
 * connection reached stands in.
 */
export function publicBaseUrl(req: Request, configured: string | undefined): string {
  if (configured) return configured;
  const protocol = req.protocol === "https" ? "https" : "http";
  const host = req.get("host");
  const usable =
    host !== undefined && host.length <= 260 && wellFormedHost.test(host) && URL.canParse(`http://${host}`);
  return `${protocol}://${usable ? host : connectedAddress(req)}`;
}

/** The address and port the request's connection reached: where this server answers, whatever the `Host` header says. */
export function connectedAddress(req: Request): string {
  const { localAddress, localPort } = req.socket;
  if (!localAddress || !localPort) return "localhost";
  return isIPv6(localAddress) ? `[${localAddress}]:${localPort}` : `${localAddress}:${localPort}`;
}

/**
 * The list platforms an API version serves (v1: its own, older set), or undefined for every
 * platform a source lists; a list elsewhere is refused with the error it answers.
 */
export interface ListScope {
  platforms: readonly string[];
  refusal(label: string): Error;
}

export function listScopeOf(res: Response): ListScope | undefined {
  return res.locals.listScope as ListScope | undefined;
}

export function keepListScope(res: Response, scope: ListScope): void {
  res.locals.listScope = scope;
}
