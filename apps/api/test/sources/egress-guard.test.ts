import { once } from "node:events";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, request, type Server } from "node:http";
import { type AddressInfo, createServer as createNetServer, type LookupFunction, type Socket } from "node:net";
import { Writable } from "node:stream";
import { type ConnectProxy, startConnectProxy } from "@verbatim/testkit/connect-proxy";
import { lookupWith } from "@verbatim/testkit/fake-podcast-host";
import { pino } from "pino";
import { ProxyAgent, fetch as undiciFetch } from "undici";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { publicAddressRule } from "../../src/adapters/net/address-rule.ts";
import { type EgressGuard, type EgressGuardOptions, startEgressGuard } from "../../src/sources/egress/egress-guard.ts";

/** Lets the target's 127.0.0.1 stand in for a public server; every other address obeys the real rule. */
const loopbackTargetIsPublic = (address: string) => (address === "127.0.0.1" ? null : publicAddressRule(address));

let target: Server;
let targetPort: number;
const targetRequests: { url: string; headers: IncomingHttpHeaders }[] = [];
const guards: EgressGuard[] = [];
const logLines: Record<string, unknown>[] = [];
const logger = pino(
  { level: "info" },
  new Writable({
    write(line, _encoding, done) {
      logLines.push(JSON.parse(String(line)));
      done();
    },
  }),
);

beforeAll(async () => {
  target = createServer((req, res) => {
    targetRequests.push({ url: req.url ?? "", headers: req.headers });
    if (req.url === "/big") res.end(Buffer.alloc(256 * 1024, "x"));
    else res.end("hello");
  });
  await new Promise<void>((listening) => target.listen(0, "127.0.0.1", listening));
  targetPort = (target.address() as AddressInfo).port;
});

afterEach(async () => {
  await Promise.all(guards.splice(0).map((guard) => guard.close()));
});

afterAll(async () => {
  target.closeAllConnections();
  await new Promise((closed) => target.close(closed));
});

/** A guard under the rule where `media.example` resolves to the loopback target, which stands in for a public host. */
async function guardUnderRule(options: Partial<EgressGuardOptions> = {}): Promise<EgressGuard> {
  const guard = await startEgressGuard({
    allowPrivateTargets: false,
    logger,
    lookup: lookupWith({ "media.example": "127.0.0.1", "internal.example": "10.1.2.3" }),
    addressRule: loopbackTargetIsPublic,
    allowedPorts: [80, 443, targetPort],
    ...options,
  });
  guards.push(guard);
  return guard;
}

function basic(credential: string): string {
  return `Basic ${Buffer.from(credential).toString("base64")}`;
}

function authorizationOf(proxyUrl: string): string {
  const url = new URL(proxyUrl);
  return basic(`${url.username}:${url.password}`);
}

interface ConnectAnswer {
  status: number;
  refusal: string | undefined;
  socket: Socket;
}

/** Sends `CONNECT authority` to the guard, as yt-dlp does for an https URL. */
async function connectThrough(guard: EgressGuard, authority: string, authorization?: string): Promise<ConnectAnswer> {
  const connect = request({
    host: "127.0.0.1",
    port: guard.port,
    method: "CONNECT",
    path: authority,
    headers: authorization ? { "proxy-authorization": authorization } : {},
  });
  connect.end();
  const [response, socket] = (await once(connect, "connect")) as [IncomingMessage, Socket];
  const refusal = response.headers["x-egress-refusal"];
  return { status: response.statusCode ?? 0, refusal: typeof refusal === "string" ? refusal : undefined, socket };
}

/** Sends an absolute-form `GET url` to the guard, as yt-dlp does for an http URL. */
async function getThrough(guard: EgressGuard, url: string, authorization: string) {
  const get = request({
    host: "127.0.0.1",
    port: guard.port,
    path: url,
    headers: { host: new URL(url).host, "proxy-authorization": authorization },
  });
  get.end();
  const [response] = (await once(get, "response")) as [IncomingMessage];
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  return { status: response.statusCode, headers: response.headers, body: Buffer.concat(chunks).toString() };
}

/** Fetches through the call's proxy URL; undici tunnels every request with CONNECT. */
async function fetchVia(proxyUrl: string, url: string): Promise<string> {
  const agent = new ProxyAgent(proxyUrl);
  try {
    return await (await undiciFetch(url, { dispatcher: agent })).text();
  } finally {
    await agent.close();
  }
}

/** A lookup that records every name asked: through an upstream proxy, names are the proxy's to resolve. */
const resolvedNames: string[] = [];
const noLookup: LookupFunction = (hostname, _options, callback) => {
  resolvedNames.push(hostname);
  callback(Object.assign(new Error(`${hostname} looked up`), { code: "ENOTFOUND" }), "", 0);
};

const generous = { maxBytes: 1024 * 1024, deadlineMs: 30_000 };

describe("egress guard: CONNECT tunnels under the public-address rule", () => {
  it("tunnels to a name that resolves to an admitted address and counts the bytes received", async () => {
    const guard = await guardUnderRule();
    const call = guard.openCall(generous);
    expect(call.proxyUrl).toMatch(new RegExp(`^http://call-${call.id}:[\\w-]+@127\\.0\\.0\\.1:${guard.port}$`));
    expect(await fetchVia(call.proxyUrl, `http://media.example:${targetPort}/hello`)).toBe("hello");
    expect(call.bytes()).toBeGreaterThan("hello".length);
    expect(call.refusedTargets).toEqual([]);
    expect(call.unreachableTargets).toEqual([]);
  });

  it("answers 403 with the reason to private, loopback and localhost literals, and records and logs each", async () => {
    const guard = await guardUnderRule();
    const call = guard.openCall(generous);
    const authorization = authorizationOf(call.proxyUrl);
    const answers = await Promise.all(
      ["10.0.0.1:443", `127.0.0.2:${targetPort}`, "localhost:443", "[::1]:443", "media.example:22"].map((authority) =>
        connectThrough(guard, authority, authorization),
      ),
    );
    expect(answers.map(({ status, refusal }) => [status, refusal])).toEqual([
      [403, "a private address"],
      [403, "a loopback address"],
      [403, "this machine (localhost)"],
      [403, "a loopback address"],
      [403, `port 22 is not one of 80, 443, ${targetPort}`],
    ]);
    expect(call.refusedTargets).toContainEqual({ host: "10.0.0.1", port: 443, reason: "a private address" });
    expect(call.refusedTargets).toHaveLength(5);
    expect(logLines).toContainEqual(
      expect.objectContaining({ level: 30, call: call.id, host: "localhost", reason: "this machine (localhost)" }),
    );
  });

  it("refuses a name that resolves to a private address, at connect time", async () => {
    const guard = await guardUnderRule();
    const call = guard.openCall(generous);
    const answer = await connectThrough(guard, "internal.example:443", authorizationOf(call.proxyUrl));
    expect([answer.status, answer.refusal]).toEqual([403, "resolves to 10.1.2.3, a private address"]);
    expect(call.refusedTargets).toEqual([
      { host: "internal.example", port: 443, reason: "resolves to 10.1.2.3, a private address" },
    ]);
  });

  it("judges the address each connection resolves to, so a name rebound to a private address is refused", async () => {
    const answersInTurn = ["127.0.0.1", "10.9.9.9"];
    const rebinding: LookupFunction = (_hostname, options, callback) => {
      const address = answersInTurn.shift() ?? "10.9.9.9";
      if (options.all) callback(null, [{ address, family: 4 }]);
      else callback(null, address, 4);
    };
    const guard = await guardUnderRule({ lookup: rebinding });
    const call = guard.openCall(generous);
    const first = await connectThrough(guard, `rebind.example:${targetPort}`, authorizationOf(call.proxyUrl));
    first.socket.destroy();
    const second = await connectThrough(guard, `rebind.example:${targetPort}`, authorizationOf(call.proxyUrl));
    expect([first.status, second.status, second.refusal]).toEqual([
      200,
      403,
      "resolves to 10.9.9.9, a private address",
    ]);
  });

  it("connects to private addresses and any port when private targets are allowed", async () => {
    const guard = await startEgressGuard({ allowPrivateTargets: true, logger });
    guards.push(guard);
    const call = guard.openCall(generous);
    expect(await fetchVia(call.proxyUrl, `http://127.0.0.1:${targetPort}/hello`)).toBe("hello");
  });
});

describe("egress guard: 407 without an open call's credential", () => {
  it("answers 407 to a request without a credential, with a wrong secret, and with a closed call's", async () => {
    const guard = await guardUnderRule();
    const call = guard.openCall(generous);
    const closed = guard.openCall(generous);
    closed.close();
    const authority = `media.example:${targetPort}`;
    const answers = await Promise.all([
      connectThrough(guard, authority),
      connectThrough(guard, authority, basic(`call-${call.id}:wrong`)),
      connectThrough(guard, authority, authorizationOf(closed.proxyUrl)),
    ]);
    expect(answers.map(({ status }) => status)).toEqual([407, 407, 407]);
    const plain = await getThrough(guard, `http://media.example:${targetPort}/hello`, basic(`call-${call.id}:`));
    expect([plain.status, plain.headers["proxy-authenticate"]]).toEqual([407, 'Basic realm="verbatim-egress"']);
  });
});

describe("egress guard: a call's limits end all its connections", () => {
  it("destroys every tunnel of a call once the bytes received pass its cap, and marks it tooLarge", async () => {
    const guard = await guardUnderRule();
    const call = guard.openCall({ maxBytes: 64 * 1024, deadlineMs: 30_000 });
    const idle = await connectThrough(guard, `media.example:${targetPort}`, authorizationOf(call.proxyUrl));
    expect(idle.status).toBe(200);
    const idleClosed = once(idle.socket, "close");
    await expect(fetchVia(call.proxyUrl, `http://media.example:${targetPort}/big`)).rejects.toThrow();
    await idleClosed;
    expect(call.tooLarge).toBe(true);
    expect(call.bytes()).toBeGreaterThan(64 * 1024);
    expect(call.bytes()).toBeLessThan(256 * 1024);
  });

  it("destroys a call's tunnels at its deadline and marks it timedOut", async () => {
    const guard = await guardUnderRule();
    const call = guard.openCall({ maxBytes: 1024, deadlineMs: 300 });
    const tunnel = await connectThrough(guard, `media.example:${targetPort}`, authorizationOf(call.proxyUrl));
    expect(tunnel.status).toBe(200);
    await once(tunnel.socket, "close");
    expect([call.timedOut, call.tooLarge]).toEqual([true, false]);
  });

  it("destroys a call's tunnels at close(), and refuses its credential from then on", async () => {
    const guard = await guardUnderRule();
    const call = guard.openCall(generous);
    const tunnel = await connectThrough(guard, `media.example:${targetPort}`, authorizationOf(call.proxyUrl));
    const closed = once(tunnel.socket, "close");
    call.close();
    await closed;
    const after = await connectThrough(guard, `media.example:${targetPort}`, authorizationOf(call.proxyUrl));
    expect([call.timedOut, call.tooLarge, after.status]).toEqual([false, false, 407]);
  });

  it("destroys a tunnel that carries no traffic for the idle timeout", async () => {
    const guard = await guardUnderRule({ idleTimeoutMs: 200 });
    const call = guard.openCall(generous);
    const tunnel = await connectThrough(guard, `media.example:${targetPort}`, authorizationOf(call.proxyUrl));
    await once(tunnel.socket, "close");
    expect([call.timedOut, call.tooLarge]).toEqual([false, false]);
  });
});

describe("egress guard: upstream proxies", () => {
  it("sends CONNECT with the name to the proxy, with the proxy's credential, and still refuses private literals", async () => {
    const tunnels: IncomingMessage[] = [];
    const upstream = await startConnectProxy({
      pinnedTo: `http://127.0.0.1:${targetPort}`,
      onTunnel: (req) => tunnels.push(req),
    });
    try {
      const proxyUrl = new URL(upstream.url);
      proxyUrl.username = "egress";
      proxyUrl.password = "s3cret pass";
      const guard = await startEgressGuard({
        allowPrivateTargets: false,
        logger,
        lookup: noLookup,
        upstreamProxyUrls: [proxyUrl.href],
      });
      guards.push(guard);
      const call = guard.openCall(generous);
      expect(await fetchVia(call.proxyUrl, "http://media.example/hello")).toBe("hello");
      expect(tunnels.map((req) => [req.url, req.headers["proxy-authorization"]])).toEqual([
        ["media.example:80", basic("egress:s3cret pass")],
      ]);
      const refused = await connectThrough(guard, "10.0.0.1:443", authorizationOf(call.proxyUrl));
      expect([refused.status, refused.refusal, tunnels.length]).toEqual([403, "a private address", 1]);
      expect(resolvedNames).toEqual([]);
    } finally {
      await upstream.close();
    }
  });

  it("takes the proxies in turn, one per call", async () => {
    const seen: string[] = [];
    const upstreams = await Promise.all(
      ["first", "second"].map((name) =>
        startConnectProxy({ pinnedTo: `http://127.0.0.1:${targetPort}`, onTunnel: () => seen.push(name) }),
      ),
    );
    try {
      const guard = await startEgressGuard({
        allowPrivateTargets: false,
        logger,
        lookup: noLookup,
        upstreamProxyUrls: upstreams.map(({ url }) => url),
      });
      guards.push(guard);
      for (let calls = 0; calls < 3; calls++) {
        expect(await fetchVia(guard.openCall(generous).proxyUrl, "http://media.example/hello")).toBe("hello");
      }
      expect(seen).toEqual(["first", "second", "first"]);
    } finally {
      await Promise.all(upstreams.map((upstream) => upstream.close()));
    }
  });
});

/**
 * Private addresses as a resolver reads them: inet_aton's numeric forms (one to four parts,
 * decimal, octal, hex), trailing dots, mixed case, percent escapes and IPv6, each with the
 * refusal the guard answers.
 */
const privateHostForms: [string, string][] = [
  ["2130706433", "a loopback address, 127.0.0.1"],
  ["0x7f000001", "a loopback address, 127.0.0.1"],
  ["0X7F000001", "a loopback address, 127.0.0.1"],
  ["0x7f.1", "a loopback address, 127.0.0.1"],
  ["0X7f.0x0.0X0.1", "a loopback address, 127.0.0.1"],
  ["0177.0.0.1", "a loopback address, 127.0.0.1"],
  ["127.000.000.001", "a loopback address, 127.0.0.1"],
  ["127.1", "a loopback address, 127.0.0.1"],
  ["127.0.0.1.", "a loopback address, 127.0.0.1"],
  ["2130706433.", "a loopback address, 127.0.0.1"],
  ["0x7f.1.", "a loopback address, 127.0.0.1"],
  ["%31%32%37.0.0.1", "a loopback address, 127.0.0.1"],
  ["0", "an unspecified address, 0.0.0.0"],
  ["10.1", "a private address, 10.0.0.1"],
  ["167772161", "a private address, 10.0.0.1"],
  ["169.254.43518", "a link-local address, 169.254.169.254"],
  ["0xa9fea9fe", "a link-local address, 169.254.169.254"],
  ["0xA9.0xFE.0xA9.0xFE", "a link-local address, 169.254.169.254"],
  ["LOCALHOST", "this machine (localhost)"],
  ["LocalHost.", "this machine (localhost)"],
  ["api.LOCALHOST.", "this machine (localhost)"],
  ["[0:0:0:0:0:0:0:1]", "a loopback address"],
  ["[::FFFF:7F00:1]", "a loopback address (inside ipv4Mapped IPv6 ::ffff:7f00:1)"],
  ["[::ffff:127.0.0.1]", "a loopback address (inside ipv4Mapped IPv6 ::ffff:7f00:1)"],
  ["[::ffff:0x7f.1]", "not a host name"],
  ["[64:ff9b::7f00:1]", "a loopback address (inside rfc6052 IPv6 64:ff9b::7f00:1)"],
  ["[::127.0.0.1]", "a deprecated IPv4-compatible address"],
];

describe("egress guard: private addresses in any form, through a resolving upstream proxy", () => {
  const tunnels: string[] = [];
  const forwarded: string[] = [];
  let upstream: ConnectProxy;
  let guard: EgressGuard;

  beforeAll(async () => {
    // An ordinary proxy resolves what it is given, so `0x7f.1` would reach the target on 127.0.0.1;
    // it connects to nothing but that loopback address, so no test traffic leaves the machine.
    upstream = await startConnectProxy({
      connectsOnlyTo: (address) => address === "127.0.0.1",
      lookup: lookupWith({ "media.example": "127.0.0.1" }),
      onTunnel: (req) => tunnels.push(req.url ?? ""),
      onForward: (req) => forwarded.push(req.url ?? ""),
    });
  });

  beforeEach(async () => {
    guard = await startEgressGuard({
      allowPrivateTargets: false,
      logger,
      lookup: noLookup,
      upstreamProxyUrls: [upstream.url],
      allowedPorts: [80, 443, targetPort],
    });
    guards.push(guard);
  });

  afterAll(async () => {
    await upstream?.close();
  });

  it("tunnels a public name through the proxy to the target, which the proxy resolves", async () => {
    const before = tunnels.length;
    const call = guard.openCall(generous);
    const answer = await connectThrough(guard, `media.example:${targetPort}`, authorizationOf(call.proxyUrl));
    answer.socket.destroy();
    expect(answer.status).toBe(200);
    expect(tunnels.slice(before)).toEqual([`media.example:${targetPort}`]);
  });

  it("answers 403 to CONNECT for every form of a private address, and the proxy never sees one", async () => {
    const before = tunnels.length;
    const call = guard.openCall(generous);
    const answers = await Promise.all(
      privateHostForms.map(async ([host]) => {
        const answer = await connectThrough(guard, `${host}:${targetPort}`, authorizationOf(call.proxyUrl));
        answer.socket.destroy();
        return [host, answer.status, answer.refusal];
      }),
    );
    expect(answers).toEqual(privateHostForms.map(([host, refusal]) => [host, 403, refusal]));
    expect(tunnels.slice(before)).toEqual([]);
    expect(call.refusedTargets.map(({ host }) => host).sort()).toEqual(privateHostForms.map(([host]) => host).sort());
  });

  it("answers 403 to an absolute-form GET for every form of a private address, and forwards none", async () => {
    const before = forwarded.length;
    const call = guard.openCall(generous);
    const answers = await Promise.all(
      privateHostForms
        .filter(([host]) => URL.canParse(`http://${host}:${targetPort}/`))
        .map(async ([host]) => {
          const answer = await getThrough(guard, `http://${host}:${targetPort}/hello`, authorizationOf(call.proxyUrl));
          return [host, answer.status];
        }),
    );
    expect(answers.length).toBeGreaterThan(20);
    expect(answers.filter(([, status]) => status !== 403)).toEqual([]);
    expect(forwarded.slice(before)).toEqual([]);
  });

  it("sends the proxy the host as it judged it: a public address in inet_aton form goes as four decimals", async () => {
    const before = tunnels.length;
    const call = guard.openCall(generous);
    const answer = await connectThrough(guard, `0x5d.0270.0xd7.14:${targetPort}`, authorizationOf(call.proxyUrl));
    answer.socket.destroy();
    expect(answer.status).toBe(502);
    expect(tunnels.slice(before)).toEqual([`93.184.215.14:${targetPort}`]);
  });
});

describe("egress guard: unreachable targets", () => {
  it("answers 502 when the upstream proxy cannot be reached, and records the target it was for", async () => {
    const closed = createNetServer();
    await new Promise<void>((listening) => closed.listen(0, "127.0.0.1", listening));
    const { port } = closed.address() as AddressInfo;
    await new Promise((done) => closed.close(done));
    const guard = await startEgressGuard({
      allowPrivateTargets: false,
      logger,
      lookup: noLookup,
      upstreamProxyUrls: [`http://127.0.0.1:${port}`],
    });
    guards.push(guard);
    const call = guard.openCall(generous);
    const tunnel = await connectThrough(guard, "www.tiktok.com:443", authorizationOf(call.proxyUrl));
    expect([tunnel.status, tunnel.refusal]).toEqual([502, "www.tiktok.com:443 could not be reached: ECONNREFUSED"]);
    const plain = await getThrough(guard, "http://media.example/hello", authorizationOf(call.proxyUrl));
    expect(plain.status).toBe(502);
    expect(call.unreachableTargets).toEqual([
      { host: "www.tiktok.com", port: 443, reason: "ECONNREFUSED" },
      { host: "media.example", port: 80, reason: "ECONNREFUSED" },
    ]);
    expect(call.refusedTargets).toEqual([]);
  });
});

describe("egress guard: plain-HTTP absolute-form requests", () => {
  it("forwards a GET directly under the rule, without the call's credential, counting the body", async () => {
    const guard = await guardUnderRule();
    const call = guard.openCall(generous);
    const before = targetRequests.length;
    const answer = await getThrough(guard, `http://media.example:${targetPort}/hello`, authorizationOf(call.proxyUrl));
    expect([answer.status, answer.body]).toEqual([200, "hello"]);
    const forwarded = targetRequests.slice(before);
    expect(forwarded.map(({ url, headers }) => [url, headers.host, headers["proxy-authorization"]])).toEqual([
      ["/hello", `media.example:${targetPort}`, undefined],
    ]);
    expect(call.bytes()).toBe("hello".length);
  });

  it("answers 403 to a private literal and to a name that resolves to a private address", async () => {
    const guard = await guardUnderRule();
    const call = guard.openCall(generous);
    const answers = await Promise.all(
      ["http://10.0.0.1/", "http://internal.example/"].map((url) =>
        getThrough(guard, url, authorizationOf(call.proxyUrl)),
      ),
    );
    expect(answers.map(({ status, headers }) => [status, headers["x-egress-refusal"]])).toEqual([
      [403, "a private address"],
      [403, "resolves to 10.1.2.3, a private address"],
    ]);
  });

  it("ends a plain-HTTP download that passes the call's cap", async () => {
    const guard = await guardUnderRule();
    const call = guard.openCall({ maxBytes: 64 * 1024, deadlineMs: 30_000 });
    await expect(
      getThrough(guard, `http://media.example:${targetPort}/big`, authorizationOf(call.proxyUrl)),
    ).rejects.toThrow();
    expect(call.tooLarge).toBe(true);
  });

  it("forwards the absolute-form request to the upstream proxy, with the proxy's credential", async () => {
    const forwarded: IncomingMessage[] = [];
    const upstream = await startConnectProxy({
      pinnedTo: `http://127.0.0.1:${targetPort}`,
      onForward: (req) => forwarded.push(req),
    });
    try {
      const proxyUrl = new URL(upstream.url);
      proxyUrl.username = "egress";
      proxyUrl.password = "s3cret";
      const guard = await startEgressGuard({
        allowPrivateTargets: false,
        logger,
        lookup: noLookup,
        upstreamProxyUrls: [proxyUrl.href],
      });
      guards.push(guard);
      const call = guard.openCall(generous);
      const answer = await getThrough(guard, "http://media.example/hello", authorizationOf(call.proxyUrl));
      expect([answer.status, answer.body]).toEqual([200, "hello"]);
      expect(forwarded.map((req) => [req.url, req.headers.host, req.headers["proxy-authorization"]])).toEqual([
        ["http://media.example/hello", "media.example", basic("egress:s3cret")],
      ]);
      expect(resolvedNames).toEqual([]);
    } finally {
      await upstream.close();
    }
  });
});
