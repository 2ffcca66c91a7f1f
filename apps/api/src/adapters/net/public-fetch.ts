import dns, { type LookupAddress } from "node:dns";
import type { LookupFunction } from "node:net";
import { Readable } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { Agent, buildConnector, type Dispatcher, ProxyAgent, fetch as undiciFetch } from "undici";
import { SourceError } from "../../sources/source-error.ts";
import { type AddressRule, literalHostRefusal, publicAddressRule } from "./address-rule.ts";
import type { MediaDownload } from "./media-download.ts";

/** How user-supplied addresses are fetched. */
export interface PublicFetchOptions {
  /** `VERBATIM_ALLOW_PRIVATE_TARGETS=1`: any address may be connected to (tests, private deployments); with `httpsOnly`, http is admitted too. */
  allowPrivateTargets: boolean;
  /** Refuse http targets (webhooks). */
  httpsOnly?: boolean;
  /** Milliseconds to connect, to wait for the answer's headers, and for each pause inside its body; default 15 s. */
  timeoutMs?: number;
  /** Redirects followed at most; default 5. */
  maxRedirects?: number;
  /** Sent as `User-Agent` unless the request sets one. */
  userAgent?: string;
  /** Resolves host names; default `dns.lookup`. Tests substitute it to make a name resolve where they need. */
  lookup?: LookupFunction;
  /** Which addresses are refused; default `publicAddressRule`. Tests substitute it so a loopback port can stand in for a public host. */
  addressRule?: AddressRule;
  /** The certificate authorities TLS connections trust (`caCertificatesFrom`); default Node's bundled roots. */
  ca?: readonly string[];
  /**
   * `VERBATIM_PROXY_URLS`: http(s) proxies, one per fetch in turn. A proxy resolves names itself,
   * so the rule judges the host as written (an IP address in any form a resolver reads, or
   * `localhost`) and admits ports 80 and 443 only, as the egress guard does for yt-dlp.
   */
  proxyUrls?: readonly string[];
}

/** One request through the public fetch. */
export interface PublicFetchInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** `follow` (default) checks every hop and follows up to `maxRedirects`; `manual` answers the 3xx itself (webhooks). */
  redirect?: "follow" | "manual";
  signal?: AbortSignal;
}

/**
 * A `fetch` for addresses users give us. It answers every HTTP status as is; it throws
 * `SourceError`s: `invalid_input` for a scheme or an address the rule refuses (on every redirect
 * hop and on the address actually connected, so DNS rebinding cannot get around it),
 * `timeout`, `connection`, and `failed` for too many redirects. An abort by the
 * caller's own signal is rethrown unchanged.
 */
export interface PublicFetch {
  (input: string | URL, init?: PublicFetchInit): Promise<Response>;
  /** Closes the pooled connections. */
  close(): Promise<void>;
}

const redirectStatuses = new Set([301, 302, 303, 307, 308]);

/** An address the rule refuses, found while connecting; the public fetch turns it into `invalid_input`. */
export class AddressRefusedError extends Error {
  constructor(
    readonly hostname: string,
    readonly address: string,
    readonly refusal: string,
  ) {
    super(`${hostname} ${hostname === address ? "is" : `resolves to ${address},`} ${refusal}`);
    this.name = "AddressRefusedError";
  }
}

/** Builds the public fetch; one connection pool per instance. */
export function createPublicFetch(options: PublicFetchOptions): PublicFetch {
  const rule = options.allowPrivateTargets ? null : (options.addressRule ?? publicAddressRule);
  const timeoutMs = options.timeoutMs ?? 15_000;
  const maxRedirects = options.maxRedirects ?? 5;
  const resolve = options.lookup ?? (dns.lookup as LookupFunction);
  const connectSocket = buildConnector({
    timeout: timeoutMs,
    lookup: rule ? checkedLookup(resolve, rule) : resolve,
    ...(options.ca ? { ca: [...options.ca] } : {}),
  });
  const agent = new Agent({
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    connect: (connectOptions, callback) => {
      // A literal IP host is connected to without a lookup, so it is checked here.
      const host = connectOptions.hostname.replace(/^\[|\]$/g, "");
      const refusal = rule ? literalHostRefusal(host, rule) : null;
      if (refusal) {
        callback(new AddressRefusedError(host, host, refusal), null);
        return;
      }
      connectSocket(connectOptions, callback);
    },
  });

  const tls = options.ca ? { ca: [...options.ca] } : undefined;
  const proxies = (options.proxyUrls ?? []).map(
    (uri) =>
      new ProxyAgent({
        uri,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        connect: { timeout: timeoutMs },
        ...(tls ? { requestTls: tls, proxyTls: tls } : {}),
      }),
  );
  let nextProxy = 0;

  const publicFetch = async (input: string | URL, init: PublicFetchInit = {}): Promise<Response> => {
    const requested = targetOf(input);
    const dispatcher: Dispatcher = proxies.length > 0 ? (proxies[nextProxy++ % proxies.length] ?? agent) : agent;
    let target = requested;
    let method = init.method ?? "GET";
    let body = init.body;
    for (let hop = 0; ; hop++) {
      checkTarget(target, requested, options);
      let response: Response;
      try {
        if (rule && dispatcher !== agent) refuseBeforeProxy(target, rule);
        response = (await undiciFetch(target, {
          method,
          headers: { "user-agent": options.userAgent ?? "Verbatim", ...init.headers },
          ...(body === undefined ? {} : { body }),
          redirect: "manual",
          dispatcher,
          ...(init.signal ? { signal: init.signal } : {}),
        })) as unknown as Response;
      } catch (error) {
        throw transportFailure(error, requested, target);
      }
      const location = response.headers.get("location");
      if (init.redirect === "manual" || !redirectStatuses.has(response.status) || !location) return response;
      await response.body?.cancel().catch(() => undefined);
      if (hop >= maxRedirects) {
        throw new SourceError("failed", `${requested.href} redirects more than ${maxRedirects} times.`);
      }
      target = redirectTarget(location, target);
      // As browsers do: 303 always, and 301/302 after a POST, continue with a GET without body.
      if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === "POST")) {
        method = "GET";
        body = undefined;
      }
    }
  };
  return Object.assign(publicFetch, {
    close: async () => {
      await Promise.all([agent.close(), ...proxies.map((proxy) => proxy.close())]);
    },
  });
}

/** The ports a proxy is asked to reach: what feeds, pages and media are served on. */
const proxiedPorts = new Set(["", "80", "443"]);

/**
 * Refuses, before a proxy sees it, a target the rule refuses by its host as written or whose
 * port is not 80 or 443: the proxy resolves names, so the address it connects to is never known here.
 */
function refuseBeforeProxy(target: URL, rule: AddressRule): void {
  const host = target.hostname.replace(/^\[|\]$/g, "");
  const refusal = literalHostRefusal(host, rule);
  if (refusal) throw new AddressRefusedError(host, host, refusal);
  if (!proxiedPorts.has(target.port)) {
    throw new SourceError(
      "invalid_input",
      `${target.href} is on port ${target.port}; through a proxy (VERBATIM_PROXY_URLS) only ports 80 and 443 are fetched.`,
    );
  }
}

/**
 * Reads a body into memory, refusing it beyond `maxBytes`: by its Content-Length before
 * reading, and while reading, so a body without one cannot grow without bound.
 */
export async function readBodyWithin(
  response: Response,
  url: URL,
  maxBytes: number,
  tooLarge: () => Error,
): Promise<Buffer> {
  refuseDeclaredSize(response, maxBytes, tooLarge);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of bodyStream(response)) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) throw tooLarge();
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    await response.body?.cancel().catch(() => undefined);
    throw transportFailure(error, url, url);
  }
  return Buffer.concat(chunks);
}

/**
 * Streams a media body to a file within the download's limits (`MediaDownload`), never holding it
 * in memory: refused by its Content-Length before reading, then counted as written.
 */
export async function saveBodyWithin(
  response: Response,
  url: URL,
  destinationPath: string,
  download: MediaDownload,
): Promise<number> {
  try {
    download.refuseDeclaredSize(declaredSize(response));
    return await download.save(bodyStream(response), destinationPath);
  } catch (error) {
    await response.body?.cancel().catch(() => undefined);
    throw transportFailure(error, url, url);
  }
}

function bodyStream(response: Response): Readable {
  return response.body ? Readable.fromWeb(response.body as unknown as WebReadableStream) : Readable.from([]);
}

function refuseDeclaredSize(response: Response, maxBytes: number, tooLarge: () => Error): void {
  const declared = declaredSize(response);
  if (declared !== null && declared > maxBytes) {
    void response.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
}

function declaredSize(response: Response): number | null {
  const header = response.headers.get("content-length");
  const declared = Number(header);
  return header !== null && Number.isFinite(declared) ? declared : null;
}

/** A lookup that fails when any resolved address is refused, so a name with one private answer is refused whichever is connected. */
export function checkedLookup(resolve: LookupFunction, rule: AddressRule): LookupFunction {
  return (hostname, lookupOptions, callback) => {
    resolve(hostname, { ...lookupOptions, all: true }, (error, addresses) => {
      if (error) {
        callback(error, "", 0);
        return;
      }
      const resolved = addresses as LookupAddress[];
      for (const { address } of resolved) {
        const refusal = rule(address);
        if (refusal) {
          callback(new AddressRefusedError(hostname, address, refusal), "", 0);
          return;
        }
      }
      const [first] = resolved;
      if (lookupOptions.all) callback(null, resolved);
      else if (first) callback(null, first.address, first.family);
      else callback(Object.assign(new Error(`${hostname} has no address`), { code: "ENOTFOUND" }), "", 0);
    });
  };
}

function targetOf(input: string | URL): URL {
  try {
    return new URL(input);
  } catch {
    throw new SourceError("invalid_input", `${String(input)} is not an absolute URL.`);
  }
}

function redirectTarget(location: string, from: URL): URL {
  try {
    return new URL(location, from);
  } catch {
    throw new SourceError("failed", `${from.href} redirects to ${location}, which is not a URL.`);
  }
}

/**
 * Refuses an address with a user name or password, given (`requested` is `target`) or reached by
 * a redirect from `requested`: the credentials would go to the host, and the address into
 * messages and logs, so the refusal repeats neither.
 */
export function refuseCredentials(target: URL, requested: URL = target): void {
  if (!target.username && !target.password) return;
  const subject = target === requested ? "The address" : `${requested.href} redirects to an address that`;
  throw new SourceError(
    "invalid_input",
    `${subject} carries a user name or password; addresses with credentials are not fetched.`,
  );
}

/** Refuses a target never fetched: one with credentials, a scheme other than http(s), http where only https is admitted. */
function checkTarget(target: URL, requested: URL, options: PublicFetchOptions): void {
  refuseCredentials(target, requested);
  const via = target === requested ? "" : ` (redirected from ${requested.href})`;
  if (target.protocol !== "http:" && target.protocol !== "https:") {
    throw new SourceError(
      "invalid_input",
      `${target.href}${via} uses ${target.protocol}; only http and https addresses are fetched.`,
    );
  }
  if (options.httpsOnly && !options.allowPrivateTargets && target.protocol === "http:") {
    throw new SourceError(
      "invalid_input",
      `${target.href}${via} uses http:; only https addresses are admitted (VERBATIM_ALLOW_PRIVATE_TARGETS=1 admits http).`,
    );
  }
}

const timeoutCodes = new Set([
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "ETIMEDOUT",
]);

/** Maps a failure of the exchange with `target` to a `SourceError`; our own and the caller's abort pass unchanged. */
function transportFailure(error: unknown, requested: URL, target: URL): unknown {
  const chain = causeChain(error);
  if (chain.some((link) => link instanceof SourceError)) return chain.find((link) => link instanceof SourceError);
  const refused = chain.find((link): link is AddressRefusedError => link instanceof AddressRefusedError);
  if (refused) {
    const verb = refused.hostname === refused.address ? "points to" : "resolves to";
    const subject = target === requested ? target.href : `${requested.href} redirects to ${target.href}, which`;
    return new SourceError(
      "invalid_input",
      `${subject} ${verb} ${refused.address}, ${refused.refusal}; only public addresses are fetched (VERBATIM_ALLOW_PRIVATE_TARGETS=1 lifts this).`,
    );
  }
  if (chain.some((link) => link instanceof Error && link.name === "AbortError")) return error;
  const isTimeout = chain.some(
    (link) => link instanceof Error && (link.name === "TimeoutError" || timeoutCodes.has(codeOf(link) ?? "")),
  );
  if (isTimeout) {
    return new SourceError("timeout", `${target.host} did not answer ${target.href} in time.`, {
      cause: error,
      advice: null,
    });
  }
  const code = chain.map(codeOf).find((value) => value !== undefined);
  return new SourceError(
    "connection",
    `The connection to ${target.host} failed${code ? ` (${code})` : ""} while fetching ${target.href}.`,
    { cause: error, advice: null },
  );
}

function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let link = error; link !== undefined && link !== null && chain.length < 8; link = (link as Error).cause) {
    chain.push(link);
  }
  return chain;
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? code : undefined;
}
