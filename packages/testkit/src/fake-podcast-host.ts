import dns from "node:dns";
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import net, { type AddressInfo, type LookupFunction } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";

/**
 * A loopback "podcast host" for HTTP tests of anything that fetches user-supplied addresses
 * (feeds, episode pages, transcripts, media, webhook callbacks): real HTTP on 127.0.0.1, port 0.
 *
 * ```ts
 * const host = await startFakePodcastHost();
 * host.serveFixture("/feed.xml", "podcast-partytime/pc20rss.xml", "application/rss+xml", {
 *   replace: { "https://mp3s.nashownotes.com/": host.url("/media/") }, // enclosures now point here
 * });
 * host.serveFile("/media/PC20-57-2021-10-08-Final.mp3", audioFixture("jfk.mp3"), "audio/mpeg");
 * host.redirect("/old", "http://10.0.0.7/feed.xml"); // a hop to a private address
 * host.fail("/gone", 404);
 * host.stall("/slow");                                 // never answers
 * const callbacks = host.requestsTo("/hooks");        // what a webhook deliverer sent
 * await host.close();
 * ```
 *
 * Unknown paths answer 404. Every request is recorded in `requests`, its body included.
 * `urlOn(name, path)` addresses the same server by another host name: resolve that name to
 * 127.0.0.1 in the client under test (the public fetch takes a `lookup`), to test redirects
 * to "a second host" and DNS answers.
 */
export interface FakePodcastHost {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  port: number;
  /** The address of `path` on this host. */
  url(path: string): string;
  /** The address of `path` on this host under another host name, e.g. `urlOn("podcasts.example", "/feed.xml")`. */
  urlOn(hostname: string, path: string): string;
  /** Answers `path` with a body; `replace` rewrites substrings of text bodies (e.g. enclosure origins). */
  serve(path: string, reply: BodyReply): void;
  /** Answers `path` with a file under `fixtures/podcasts/`. */
  serveFixture(path: string, fixture: string, contentType: string, options?: ServeOptions): void;
  /** Answers `path` with any file, by absolute path. */
  serveFile(path: string, filePath: string, contentType: string, options?: ServeOptions): void;
  /** Answers `path` with a redirect to `location` (absolute or relative). */
  redirect(path: string, location: string, status?: number): void;
  /** Answers `path` with an error status. */
  fail(path: string, status: number, body?: string): void;
  /** Never answers `path`: the client's timeout must fire. */
  stall(path: string): void;
  /** Answers `path` with 200 and sends `chunks` chunks of `chunkBytes` bytes, `intervalMs` apart: slow or endless bodies. */
  trickle(path: string, options: { chunkBytes: number; chunks: number; intervalMs: number; contentType: string }): void;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  /** The requests received on `path`. */
  requestsTo(path: string): RecordedRequest[];
  /** The most requests to `path` (queries aside) that were open at once: how many clients worked in parallel. */
  peakOpenRequests(path: string): number;
  /** Stops the server, cutting stalled and trickling connections. */
  close(): Promise<void>;
}

export interface RecordedRequest {
  method: string;
  /** The path with its query. */
  path: string;
  /** The `Host` header: tells which host name the client used. */
  host: string | undefined;
  headers: IncomingMessage["headers"];
  body: string;
}

export interface BodyReply {
  body: string | Buffer;
  contentType: string;
  status?: number;
  headers?: Record<string, string>;
}

export interface ServeOptions {
  status?: number;
  headers?: Record<string, string>;
  /** Substrings to replace in the file's text, e.g. a feed's media origin by this host's. */
  replace?: Record<string, string>;
}

type Route =
  | { kind: "body"; reply: BodyReply }
  | { kind: "redirect"; location: string; status: number }
  | { kind: "stall" }
  | { kind: "trickle"; chunkBytes: number; chunks: number; intervalMs: number; contentType: string };

const fixturesRoot = fileURLToPath(new URL("../fixtures/podcasts/", import.meta.url));

/** The absolute path of a file under `fixtures/podcasts/`. */
export function podcastFixture(path: string): string {
  return `${fixturesRoot}${path}`;
}

/** The absolute path of a file under `fixtures/audio/` (e.g. `whisper-cpp/jfk.mp3`). */
export function audioFixture(path: string): string {
  return fileURLToPath(new URL(`../fixtures/audio/${path}`, import.meta.url));
}

/**
 * A DNS lookup that answers `names` with the given addresses and asks the system for the rest:
 * pass it as the public fetch's `lookup` to make `podcasts.example` (or a real podcast host's
 * name, e.g. `mp3s.nashownotes.com`) reach the fake host, or resolve to a private address.
 */
export function lookupWith(names: Record<string, string>): LookupFunction {
  return (hostname, options, callback) => {
    const address = names[hostname];
    if (address === undefined) {
      dns.lookup(hostname, options, callback);
      return;
    }
    const family = net.isIP(address);
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

/** Starts a fake podcast host on 127.0.0.1 and a free port. */
export async function startFakePodcastHost(): Promise<FakePodcastHost> {
  const routes = new Map<string, Route>();
  const requests: RecordedRequest[] = [];
  const openRequests = new Map<string, { open: number; peak: number }>();
  const server = createServer((request, response) => {
    const pathAlone = (request.url ?? "/").split("?")[0] ?? "/";
    const counts = openRequests.get(pathAlone) ?? { open: 0, peak: 0 };
    openRequests.set(pathAlone, counts);
    counts.open++;
    counts.peak = Math.max(counts.peak, counts.open);
    response.on("close", () => counts.open--);
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const path = request.url ?? "/";
      requests.push({
        method: request.method ?? "GET",
        path,
        host: request.headers.host,
        headers: request.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      });
      const route = routes.get(path) ?? routes.get(path.split("?")[0] ?? path);
      void answer(route, request, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;

  const serveFile = (path: string, filePath: string, contentType: string, options: ServeOptions = {}) => {
    let body: string | Buffer = readFileSync(filePath);
    if (options.replace) {
      let text = body.toString("latin1");
      for (const [from, to] of Object.entries(options.replace)) text = text.split(from).join(to);
      body = Buffer.from(text, "latin1");
    }
    routes.set(path, {
      kind: "body",
      reply: {
        body,
        contentType,
        ...(options.status ? { status: options.status } : {}),
        headers: options.headers ?? {},
      },
    });
  };

  return {
    origin,
    port,
    url: (path) => `${origin}${path}`,
    urlOn: (hostname, path) => `http://${hostname}:${port}${path}`,
    serve: (path, reply) => routes.set(path, { kind: "body", reply }),
    serveFixture: (path, fixture, contentType, options) =>
      serveFile(path, podcastFixture(fixture), contentType, options),
    serveFile,
    redirect: (path, location, status = 302) => routes.set(path, { kind: "redirect", location, status }),
    fail: (path, status, body = `HTTP ${status}`) =>
      routes.set(path, { kind: "body", reply: { body, contentType: "text/plain", status } }),
    stall: (path) => routes.set(path, { kind: "stall" }),
    trickle: (path, options) => routes.set(path, { kind: "trickle", ...options }),
    requests,
    requestsTo: (path) => requests.filter((request) => request.path === path),
    peakOpenRequests: (path) => openRequests.get(path)?.peak ?? 0,
    close() {
      server.closeAllConnections();
      return new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

async function answer(route: Route | undefined, request: IncomingMessage, response: ServerResponse): Promise<void> {
  if (!route) {
    response.writeHead(404, { "content-type": "text/plain" }).end("not found");
    return;
  }
  switch (route.kind) {
    case "body": {
      const { body, contentType, status = 200, headers = {} } = route.reply;
      response.writeHead(status, {
        "content-type": contentType,
        "content-length": Buffer.byteLength(body),
        ...headers,
      });
      response.end(request.method === "HEAD" ? undefined : body);
      return;
    }
    case "redirect":
      response.writeHead(route.status, { location: route.location, "content-length": 0 }).end();
      return;
    case "stall":
      return;
    case "trickle": {
      response.writeHead(200, { "content-type": route.contentType });
      for (let sent = 0; sent < route.chunks && !response.destroyed; sent++) {
        response.write(Buffer.alloc(route.chunkBytes, 0x55));
        await sleep(route.intervalMs);
      }
      response.end();
    }
  }
}
