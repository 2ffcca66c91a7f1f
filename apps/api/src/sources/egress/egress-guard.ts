import { randomBytes, timingSafeEqual } from "node:crypto";
import dns from "node:dns";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import https from "node:https";
import net, { type AddressInfo, type LookupFunction } from "node:net";
import type { Duplex } from "node:stream";
import {
  type AddressRule,
  canonicalHost,
  literalHostRefusal,
  publicAddressRule,
} from "../../adapters/net/address-rule.ts";
import { AddressRefusedError, checkedLookup } from "../../adapters/net/public-fetch.ts";
import type { Logger } from "../../logger.ts";

/** How the egress guard connects. */
export interface EgressGuardOptions {
  /** `VERBATIM_ALLOW_PRIVATE_TARGETS=1`: any address and any port (tests, private deployments). */
  allowPrivateTargets: boolean;
  /** `VERBATIM_PROXY_URLS`: http(s) proxies, one per call in turn; they resolve names themselves. */
  upstreamProxyUrls?: readonly string[];
  /** The certificate authorities trusted by TLS to an https upstream proxy (`caCertificatesFrom`). */
  ca?: readonly string[];
  logger: Logger;
  /** Milliseconds a connection, connecting or connected, may pass without traffic; default 60 s. */
  idleTimeoutMs?: number;
  /** Resolves host names; default `dns.lookup`. Tests substitute it to make a name resolve where they need. */
  lookup?: LookupFunction;
  /** Which addresses are refused; default `publicAddressRule`. Tests substitute it so a loopback port can stand in for a public host. */
  addressRule?: AddressRule;
  /** The ports the rule admits; default 80 and 443. Tests add a loopback server's port. */
  allowedPorts?: readonly number[];
}

/** The limits of one call's traffic, over all its connections. */
export interface EgressCallLimits {
  /** Bytes received from targets at most; beyond, every connection of the call is destroyed. */
  maxBytes: number;
  /** Milliseconds from `openCall` after which every connection of the call is destroyed. */
  deadlineMs: number;
}

/** A target the guard would not connect a call to, and why. */
export interface EgressRefusal {
  host: string;
  port: number;
  reason: string;
}

/** One caller's (one yt-dlp run's) use of the guard. */
export interface EgressCall {
  readonly id: string;
  /** The proxy URL to give the caller (`yt-dlp --proxy`), with the call's credential in it. */
  readonly proxyUrl: string;
  /** Bytes received from targets so far, over all the call's connections. */
  bytes(): number;
  /** The byte cap ended the call. */
  readonly tooLarge: boolean;
  /** The deadline ended the call. */
  readonly timedOut: boolean;
  /** The targets refused, so the caller can tell why "connection refused" happened. */
  readonly refusedTargets: readonly EgressRefusal[];
  /**
   * The targets that could not be reached (refused, reset, no upstream proxy), so the caller can
   * say which, where yt-dlp only saw its proxy answer 502.
   */
  readonly unreachableTargets: readonly EgressRefusal[];
  /** Destroys the call's remaining connections; its credential is refused from then on. */
  close(): void;
}

/** A loopback HTTP proxy through which every connection of a sidecar goes, under the public-address rule. */
export interface EgressGuard {
  readonly port: number;
  openCall(limits: EgressCallLimits): EgressCall;
  /** Ends every call and stops listening. */
  close(): Promise<void>;
}

class GuardedCall implements EgressCall {
  tooLarge = false;
  timedOut = false;
  readonly refusedTargets: EgressRefusal[] = [];
  readonly unreachableTargets: EgressRefusal[] = [];
  private received = 0;
  private ended = false;
  private readonly connections = new Set<Duplex>();
  private readonly deadline: NodeJS.Timeout;

  constructor(
    readonly id: string,
    private readonly secret: Buffer,
    readonly proxyUrl: string,
    readonly upstreamProxy: URL | undefined,
    private readonly maxBytes: number,
    deadlineMs: number,
    private readonly onEnd: (call: GuardedCall) => void,
  ) {
    this.deadline = setTimeout(() => {
      this.timedOut = true;
      this.close();
    }, deadlineMs).unref();
  }

  bytes(): number {
    return this.received;
  }

  admits(secret: Buffer): boolean {
    return !this.ended && secret.length === this.secret.length && timingSafeEqual(secret, this.secret);
  }

  /** Makes `connection` the call's, destroyed with it; false (and destroyed) when the call has ended. */
  hold(connection: Duplex): boolean {
    if (this.ended) {
      connection.destroy();
      return false;
    }
    if (this.connections.has(connection)) return true;
    this.connections.add(connection);
    connection.once("close", () => this.connections.delete(connection));
    return true;
  }

  /** Counts bytes received; false once the cap is passed, and the call is then ended. */
  count(bytes: number): boolean {
    this.received += bytes;
    if (this.received <= this.maxBytes) return true;
    this.tooLarge = true;
    this.close();
    return false;
  }

  close(): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.deadline);
    this.onEnd(this);
    for (const connection of this.connections) connection.destroy();
  }
}

/** Starts the guard on 127.0.0.1 and a free port. */
export async function startEgressGuard(options: EgressGuardOptions): Promise<EgressGuard> {
  const rule = options.allowPrivateTargets ? null : (options.addressRule ?? publicAddressRule);
  const resolve = options.lookup ?? (dns.lookup as LookupFunction);
  const lookup = rule ? checkedLookup(resolve, rule) : resolve;
  const allowedPorts = new Set(options.allowedPorts ?? [80, 443]);
  const upstreamProxies = (options.upstreamProxyUrls ?? []).map((url) => new URL(url));
  const idleTimeoutMs = options.idleTimeoutMs ?? 60_000;
  const tls = options.ca ? { ca: [...options.ca] } : {};
  const calls = new Map<string, GuardedCall>();
  let nextProxy = 0;

  const callOf = (request: IncomingMessage): GuardedCall | null => {
    const encoded = /^Basic\s+(\S+)$/i.exec(request.headers["proxy-authorization"] ?? "")?.[1] ?? "";
    const credential = Buffer.from(encoded, "base64").toString();
    const colon = credential.indexOf(":");
    const id = /^call-([0-9a-f]+)$/.exec(credential.slice(0, Math.max(colon, 0)))?.[1];
    const call = id === undefined ? undefined : calls.get(id);
    return call?.admits(Buffer.from(credential.slice(colon + 1))) ? call : null;
  };

  const refusalOf = (host: string, port: number): string | null => {
    if (!rule) return null;
    if (!allowedPorts.has(port)) return `port ${port} is not one of ${[...allowedPorts].join(", ")}`;
    return literalHostRefusal(host, rule);
  };

  const refuse = (call: GuardedCall, host: string, port: number, reason: string): string => {
    call.refusedTargets.push({ host, port, reason });
    options.logger.info({ call: call.id, host, port, reason }, "egress guard refused a target");
    return reason;
  };

  const unreachable = (call: GuardedCall, host: string, port: number, error: unknown): string => {
    const reason = failureText(error);
    call.unreachableTargets.push({ host, port, reason });
    options.logger.info({ call: call.id, host, port, reason }, "egress guard could not reach a target");
    return `${host}:${port} could not be reached: ${reason}`;
  };

  const connectDirect = (host: string, port: number) =>
    new Promise<Duplex>((connected, reject) => {
      const socket = net.connect({ host: bare(host), port, lookup });
      socket.setTimeout(idleTimeoutMs, () => socket.destroy(timeoutError(idleTimeoutMs)));
      socket.once("connect", () => connected(socket));
      socket.once("error", reject);
    });

  const connectThrough = (proxy: URL, host: string, port: number) =>
    new Promise<Duplex>((resolveTunnel, reject) => {
      const authority = `${host}:${port}`;
      const request = (proxy.protocol === "https:" ? https : http).request({
        ...proxyAddress(proxy),
        method: "CONNECT",
        path: authority,
        headers: { host: authority, ...proxyAuthorization(proxy) },
        agent: false,
        ...tls,
      });
      request.setTimeout(idleTimeoutMs, () => request.destroy(timeoutError(idleTimeoutMs)));
      request.once("error", reject);
      request.once("connect", (response, socket, head) => {
        if (response.statusCode !== 200) {
          socket.destroy();
          reject(new Error(`the upstream proxy ${proxy.host} answered ${response.statusCode} to CONNECT ${authority}`));
          return;
        }
        if (head.length > 0) socket.unshift(head);
        resolveTunnel(socket);
      });
      request.end();
    });

  const tunnel = async (request: IncomingMessage, client: Duplex, head: Buffer) => {
    client.on("error", () => client.destroy());
    const call = callOf(request);
    if (!call) return answerRaw(client, 407, "An open call's credential is required.");
    const authority = /^(\[[^\]]+\]|[^:[\]]+):(\d{1,5})$/.exec(request.url ?? "");
    if (!authority) return answerRaw(client, 400, "CONNECT needs host:port.");
    const [, host = "", portText = ""] = authority;
    const port = Number(portText);
    const refusal = refusalOf(host, port);
    if (refusal) return answerRaw(client, 403, refuse(call, host, port, refusal));
    // An upstream proxy gets the host as judged: its resolver would read `0x7f.1` as 127.0.0.1.
    const canonical = canonicalHost(host);
    if (canonical === null) return answerRaw(client, 400, "CONNECT needs host:port.");
    if (!call.hold(client)) return;
    idle(client, idleTimeoutMs);
    let target: Duplex;
    try {
      target = await (call.upstreamProxy
        ? connectThrough(call.upstreamProxy, canonical, port)
        : connectDirect(canonical, port));
    } catch (error) {
      if (error instanceof AddressRefusedError)
        return answerRaw(client, 403, refuse(call, host, port, reasonOf(error)));
      return answerRaw(client, 502, unreachable(call, host, port, error));
    }
    if (!call.hold(target)) return;
    // The client may have gone while the target was being connected.
    if (client.destroyed) return void target.destroy();
    idle(target, idleTimeoutMs);
    client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    if (head.length > 0) target.write(head);
    relay(target, client, (bytes) => call.count(bytes));
    relay(client, target);
  };

  const forward = (request: IncomingMessage, response: ServerResponse) => {
    const call = callOf(request);
    if (!call) return answerHttp(response, 407, "An open call's credential is required.");
    const url = URL.canParse(request.url ?? "") ? new URL(request.url ?? "") : null;
    if (url?.protocol !== "http:") {
      return answerHttp(response, 400, "Only absolute http:// URLs are forwarded; https goes through CONNECT.");
    }
    const port = Number(url.port || 80);
    const refusal = refusalOf(url.hostname, port);
    if (refusal) return answerHttp(response, 403, refuse(call, url.hostname, port, refusal));
    if (!call.hold(request.socket)) return;
    const headers = { ...request.headers };
    delete headers["proxy-authorization"];
    delete headers["proxy-connection"];
    const proxy = call.upstreamProxy;
    const outgoing = proxy
      ? (proxy.protocol === "https:" ? https : http).request({
          ...proxyAddress(proxy),
          method: request.method,
          path: url.href,
          headers: { ...headers, ...proxyAuthorization(proxy) },
          agent: false,
          ...tls,
        })
      : http.request({
          host: bare(url.hostname),
          port,
          method: request.method,
          path: url.pathname + url.search,
          headers,
          lookup,
          agent: false,
        });
    outgoing.once("socket", (socket) => {
      if (call.hold(socket)) idle(socket, idleTimeoutMs);
    });
    outgoing.once("response", (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      relay(answer, response, (bytes) => call.count(bytes));
    });
    outgoing.once("error", (error) => {
      if (response.headersSent) response.destroy();
      else if (error instanceof AddressRefusedError) {
        answerHttp(response, 403, refuse(call, url.hostname, port, reasonOf(error)));
      } else answerHttp(response, 502, unreachable(call, url.hostname, port, error));
    });
    request.pipe(outgoing);
  };

  const server = http.createServer();
  server.timeout = idleTimeoutMs;
  server.on("connect", (request, client, head) => void tunnel(request, client, head));
  server.on("request", forward);
  server.on("clientError", (_error, socket) => socket.destroy());
  await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
  const { port } = server.address() as AddressInfo;

  return {
    port,
    openCall(limits) {
      const id = randomBytes(8).toString("hex");
      const secret = randomBytes(18).toString("base64url");
      const proxy = upstreamProxies.length > 0 ? upstreamProxies[nextProxy++ % upstreamProxies.length] : undefined;
      const proxyUrl = `http://call-${id}:${secret}@127.0.0.1:${port}`;
      const call = new GuardedCall(id, Buffer.from(secret), proxyUrl, proxy, limits.maxBytes, limits.deadlineMs, () =>
        calls.delete(id),
      );
      calls.set(id, call);
      return call;
    },
    async close() {
      for (const call of [...calls.values()]) call.close();
      server.closeAllConnections();
      await new Promise((closed) => server.close(closed));
    },
  };
}

/** Copies `from` to `to` with backpressure; `count` may refuse a chunk (the call has ended). */
function relay(from: Duplex | IncomingMessage, to: Duplex | ServerResponse, count?: (bytes: number) => boolean) {
  from.on("data", (chunk: Buffer) => {
    if (count && !count(chunk.length)) return;
    if (!to.write(chunk)) {
      from.pause();
      to.once("drain", () => from.resume());
    }
  });
  from.once("end", () => to.end());
  // A close before the end is a failure; the other side must not wait for the rest.
  from.once("close", () => {
    if (!from.readableEnded) to.destroy();
  });
  to.once("close", () => from.destroy());
}

function idle(connection: Duplex, idleTimeoutMs: number): void {
  connection.on("error", () => connection.destroy());
  if (connection instanceof net.Socket) connection.setTimeout(idleTimeoutMs, () => connection.destroy());
}

function proxyAddress(proxy: URL): { host: string; port: number } {
  return { host: bare(proxy.hostname), port: Number(proxy.port || (proxy.protocol === "https:" ? 443 : 80)) };
}

function proxyAuthorization(proxy: URL): Record<string, string> {
  if (!proxy.username) return {};
  const credential = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
  return { "proxy-authorization": `Basic ${Buffer.from(credential).toString("base64")}` };
}

function bare(host: string): string {
  return host.replace(/^\[|\]$/g, "");
}

function reasonOf(error: AddressRefusedError): string {
  return error.hostname === error.address ? error.refusal : `resolves to ${error.address}, ${error.refusal}`;
}

function timeoutError(idleTimeoutMs: number): Error {
  return Object.assign(new Error(`no traffic for ${idleTimeoutMs} ms`), { code: "ETIMEDOUT" });
}

function failureText(error: unknown): string {
  return (error as { code?: string }).code ?? (error instanceof Error ? error.message : String(error));
}

/** A header value and a body line: printable ASCII only. */
function printable(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, "?");
}

function answerRaw(client: Duplex, status: number, reason: string): void {
  const body = `${printable(reason)}\n`;
  const authenticate = status === 407 ? 'Proxy-Authenticate: Basic realm="verbatim-egress"\r\n' : "";
  client.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\n${authenticate}X-Egress-Refusal: ${printable(reason)}\r\n` +
      `Content-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

function answerHttp(response: ServerResponse, status: number, reason: string): void {
  response.writeHead(status, {
    "content-type": "text/plain",
    "x-egress-refusal": printable(reason),
    connection: "close",
    ...(status === 407 ? { "proxy-authenticate": 'Basic realm="verbatim-egress"' } : {}),
  });
  response.end(`${printable(reason)}\n`);
}
