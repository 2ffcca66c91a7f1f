import { isIPv6 } from "node:net";
import type { Request, Response } from "express";

/** The request's id, assigned before anything else runs. */
export function requestIdOf(res: Response): string {
  return res.locals.requestId as string;
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
