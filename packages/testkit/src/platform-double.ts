import { execFile, spawnSync } from "node:child_process";
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { mkdtemp, readdir, readFile, stat } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo, Socket } from "node:net";
import { isIP } from "node:net";
import { tmpdir } from "node:os";
import { extname, join } from "node:path";
import { createSecureContext, type SecureContext, TLSSocket } from "node:tls";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import forge from "node-forge";

const run = promisify(execFile);
const require = createRequire(import.meta.url);

let ffmpeg: string | undefined;

/** The system ffmpeg when one is on PATH, else the static binary of `@ffmpeg-installer/ffmpeg`, as the service picks it. */
function ffmpegPath(): string {
  if (ffmpeg === undefined) {
    const system = spawnSync("ffmpeg", ["-hide_banner", "-version"], { stdio: "ignore" });
    ffmpeg = system.status === 0 ? "ffmpeg" : (require("@ffmpeg-installer/ffmpeg") as { path: string }).path;
  }
  return ffmpeg;
}

const PLATFORMS_DIR = fileURLToPath(new URL("../fixtures/platforms/", import.meta.url));
const CA_FILE = join(PLATFORMS_DIR, "tls", "ca.pem");
const CA_KEY_FILE = join(PLATFORMS_DIR, "tls", "ca-key.pem");
const SPEECH_SOURCE = fileURLToPath(new URL("../fixtures/audio/openai-whisper/jfk.flac", import.meta.url));
/** jfk.flac lasts 11 s: the pictures and the silent media last as long, so durations agree. */
const SPEECH_SECONDS = "11";

/** The absolute path of a file under `fixtures/platforms/` (e.g. `tiktok/info/captions.json`). */
export function platformFixture(path: string): string {
  return join(PLATFORMS_DIR, path);
}

/** One answer of a route table (`<platform>/routes.json`); `fixtures/platforms/README.md` says what each field does. */
export interface PlatformRoute {
  method?: string;
  url: string;
  match?: "path" | "full" | "prefix";
  bodyIncludes?: string;
  /** The request's query, percent-decoded (`+` as a space), must contain this: GraphQL GETs share one path. */
  queryIncludes?: string;
  status?: number;
  headers?: Record<string, string | string[]>;
  file?: string;
  text?: string;
  media?: string;
  delayMs?: number;
}

/** A request the double received: CONNECT tunnels as `host:port`, the requests inside them as absolute URLs. */
export interface RecordedPlatformRequest {
  method: string;
  url: string;
  /** The client's connection to the proxy, numbered from 1: a tunnel's requests share its CONNECT's. */
  connection: number;
}

export interface PlatformDouble {
  /** `http://127.0.0.1:<port>`: an HTTP proxy (CONNECT and absolute-form). */
  proxyUrl: string;
  /** The test CA that signs every certificate the double presents (PEM). */
  caFile: string;
  requests: RecordedPlatformRequest[];
  /** Answers with `route` before any route table (its `file` is under `fixtures/platforms/`), until the returned function is called. */
  serve(route: PlatformRoute): () => void;
  /**
   * Holds the answers to requests whose URL starts with `urlPrefix` until the returned function
   * is called; they are recorded at once and answered as before once released.
   */
  hold(urlPrefix: string): () => void;
  close(): Promise<void>;
}

interface LoadedRoute extends PlatformRoute {
  folder: string;
}

/**
 * The video platforms as yt-dlp sees them, on loopback: an HTTP proxy that answers CONNECT by
 * terminating TLS itself with a certificate for the tunnel's host signed by the committed test CA,
 * then answers every request, inside a tunnel or in absolute form, from the platforms' route tables.
 * A request no route matches gets an empty 404. Nothing leaves the machine.
 */
export async function startPlatformDouble(
  options: { platforms?: string[]; port?: number } = {},
): Promise<PlatformDouble> {
  const routes = await loadRoutes(options.platforms);
  const served: LoadedRoute[] = [];
  const holds = new Map<string, Promise<void>>();
  const certificates = await certificateAuthority();
  const requests: RecordedPlatformRequest[] = [];
  const tunnelOrigins = new WeakMap<Socket, string>();
  const connectionNumbers = new WeakMap<Socket, number>();
  let connections = 0;
  const sockets = new Set<Socket>();

  const answer = async (req: IncomingMessage, res: ServerResponse) => {
    const origin = tunnelOrigins.get(req.socket);
    const url = origin ? `${origin}${req.url ?? "/"}` : (req.url ?? "/");
    const method = req.method ?? "GET";
    // A proxy is asked in absolute form; anything else (a browser or curl at the double itself) is no platform's.
    if (!URL.canParse(url)) {
      res.writeHead(400, { "content-type": "text/plain" }).end("The platform double answers proxied requests only.\n");
      return;
    }
    requests.push({ method, url, connection: connectionNumbers.get(req.socket) ?? 0 });
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    for (const [prefix, released] of holds) if (url.startsWith(prefix)) await released;
    const body = Buffer.concat(chunks).toString("utf8");
    const route = findRoute(served, method, url, body) ?? findRoute(routes, method, url, body);
    if (!route) {
      res.writeHead(404, { "content-length": "0" }).end();
      return;
    }
    if (route.delayMs) await new Promise((resolve) => setTimeout(resolve, route.delayMs));
    await sendRoute(route, req, res);
  };

  const tunnels = createServer(answer);
  const proxy = createServer(answer);
  for (const server of [tunnels, proxy]) {
    // yt-dlp keeps its connections open between requests; only it closes them, or close() does.
    server.keepAliveTimeout = 10 * 60_000;
    server.on("connection", (socket: Socket) => {
      sockets.add(socket);
      socket.once("close", () => sockets.delete(socket));
    });
  }
  proxy.on("connection", (socket: Socket) => {
    connections += 1;
    connectionNumbers.set(socket, connections);
  });
  proxy.on("connect", (req: IncomingMessage, socket: Socket, head: Buffer) => {
    const authority = req.url ?? "";
    const connection = connectionNumbers.get(socket) ?? 0;
    requests.push({ method: "CONNECT", url: authority, connection });
    const { hostname, port } = new URL(`https://${authority}`);
    const host = hostname.replace(/^\[(.*)\]$/, "$1");
    socket.on("error", () => socket.destroy());
    socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    // Port 80 carries plain HTTP, every other port TLS: how browsers and yt-dlp use CONNECT.
    if (port === "80") {
      tunnelOrigins.set(socket, `http://${hostname}`);
      tunnels.emit("connection", socket);
      return;
    }
    // TLSSocket reads what the socket already buffered: a client that did not wait for the 200.
    if (head.length > 0) socket.unshift(head);
    const tlsSocket = new TLSSocket(socket, {
      isServer: true,
      secureContext: certificates.contextFor(host),
      ALPNProtocols: ["http/1.1"],
    });
    tlsSocket.on("error", () => socket.destroy());
    connectionNumbers.set(tlsSocket, connection);
    tunnelOrigins.set(tlsSocket, `https://${hostname}${port ? `:${port}` : ""}`);
    tunnels.emit("connection", tlsSocket);
  });

  await new Promise<void>((resolve, reject) => {
    proxy.once("error", reject);
    proxy.listen(options.port ?? 0, "127.0.0.1", resolve);
  });
  return {
    proxyUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    caFile: CA_FILE,
    requests,
    serve(route) {
      const loaded = { ...route, folder: PLATFORMS_DIR };
      served.unshift(loaded);
      return () => {
        const at = served.indexOf(loaded);
        if (at !== -1) served.splice(at, 1);
      };
    },
    hold(urlPrefix) {
      let release: () => void = () => undefined;
      holds.set(
        urlPrefix,
        new Promise<void>((resolve) => {
          release = resolve;
        }),
      );
      return () => {
        holds.delete(urlPrefix);
        release();
      };
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      tunnels.close();
      await new Promise((resolve) => proxy.close(resolve));
    },
  };
}

async function loadRoutes(platforms: string[] | undefined): Promise<LoadedRoute[]> {
  const folders = platforms ?? (await platformFolders());
  const tables = await Promise.all(
    folders.map(async (platform) => {
      const folder = join(PLATFORMS_DIR, platform);
      const table = JSON.parse(await readFile(join(folder, "routes.json"), "utf8")) as { routes: PlatformRoute[] };
      return table.routes.map((route) => ({ ...route, folder }));
    }),
  );
  return tables.flat();
}

async function platformFolders(): Promise<string[]> {
  const entries = await readdir(PLATFORMS_DIR, { withFileTypes: true });
  const withRoutes = await Promise.all(
    entries
      .filter((entry) => entry.isDirectory())
      .map(async (entry) => {
        const table = await stat(join(PLATFORMS_DIR, entry.name, "routes.json")).catch(() => undefined);
        return table ? entry.name : undefined;
      }),
  );
  return withRoutes.filter((name) => name !== undefined);
}

function findRoute(routes: LoadedRoute[], method: string, url: string, body: string): LoadedRoute | undefined {
  const requested = new URL(url);
  const withoutQuery = `${requested.protocol}//${requested.host}${requested.pathname}`;
  const routeMethod = method === "HEAD" ? "GET" : method;
  const decodedQuery = decodeURIComponent(requested.search.replace(/\+/g, " "));
  return routes.find((route) => {
    if ((route.method ?? "GET").toUpperCase() !== routeMethod) return false;
    if (route.bodyIncludes !== undefined && !body.includes(route.bodyIncludes)) return false;
    if (route.queryIncludes !== undefined && !decodedQuery.includes(route.queryIncludes)) return false;
    const match = route.match ?? "path";
    if (match === "full") return new URL(route.url).href === requested.href;
    if (match === "prefix") return withoutQuery.startsWith(route.url);
    const expected = new URL(route.url);
    return `${expected.protocol}//${expected.host}${expected.pathname}` === withoutQuery;
  });
}

const MEDIA_TYPES: Record<string, string> = {
  ".m4a": "audio/mp4",
  ".mp4": "video/mp4",
  ".mp3": "audio/mpeg",
  ".ts": "video/mp2t",
};

async function sendRoute(route: LoadedRoute, req: IncomingMessage, res: ServerResponse): Promise<void> {
  let body: Buffer;
  const headers: Record<string, string | string[]> = {};
  if (route.media !== undefined) {
    body = await readFile(await generatedMedia(route.media));
    headers["content-type"] = MEDIA_TYPES[extname(route.media)] ?? "application/octet-stream";
    headers["accept-ranges"] = "bytes";
  } else if (route.file !== undefined) {
    body = await readFile(join(route.folder, route.file));
  } else {
    body = Buffer.from(route.text ?? "", "utf8");
  }
  Object.assign(headers, route.headers);
  let status = route.status ?? 200;
  const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? "");
  if (route.media !== undefined && range && status === 200) {
    const start = Number(range[1]);
    const end = range[2] ? Math.min(Number(range[2]), body.length - 1) : body.length - 1;
    if (start >= body.length) {
      res.writeHead(416, { "content-range": `bytes */${body.length}`, "content-length": "0" }).end();
      return;
    }
    headers["content-range"] = `bytes ${start}-${end}/${body.length}`;
    body = body.subarray(start, end + 1);
    status = 206;
  }
  headers["content-length"] = String(body.length);
  res.writeHead(status, headers);
  res.end(req.method === "HEAD" ? undefined : body);
}

/** The arguments after `-i jfk.flac` (or before, for the silent video) that make each media name. */
const MEDIA_RECIPES: Record<string, string[]> = {
  "speech.m4a": ["-i", SPEECH_SOURCE, "-vn", "-c:a", "aac", "-b:a", "64k", "-movflags", "+faststart"],
  "speech.mp3": ["-i", SPEECH_SOURCE, "-vn", "-c:a", "libmp3lame", "-b:a", "64k"],
  // The picture lasts as long as the speech: with `-shortest` alone the video track ran past the audio (16 s).
  "speech.mp4": [
    ...["-f", "lavfi", "-i", `color=c=black:s=160x120:r=10:d=${SPEECH_SECONDS}`, "-i", SPEECH_SOURCE, "-shortest"],
    ...["-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "64k", "-movflags", "+faststart"],
  ],
  // An HLS segment of an audio-only rendition, as Twitch's audio_only playlist serves.
  "speech.ts": ["-i", SPEECH_SOURCE, "-vn", "-c:a", "aac", "-b:a", "64k", "-f", "mpegts"],
  // A video with no audio stream at all: the no_audio case.
  "silence.mp4": [
    ...["-f", "lavfi", "-i", `color=c=black:s=160x120:r=10:d=${SPEECH_SECONDS}`],
    ...["-c:v", "libx264", "-pix_fmt", "yuv420p", "-movflags", "+faststart"],
  ],
};

let mediaDir: Promise<string> | undefined;
const madeMedia = new Map<string, Promise<string>>();

/** Each media file is made once per process, on first use, and removed when the process exits. */
function generatedMedia(name: string): Promise<string> {
  const recipe = MEDIA_RECIPES[name];
  if (!recipe) throw new Error(`No recipe for media "${name}": one of ${Object.keys(MEDIA_RECIPES).join(", ")}`);
  let made = madeMedia.get(name);
  if (!made) {
    mediaDir ??= mkdtemp(join(tmpdir(), "verbatim-platform-media-")).then((dir) => {
      process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
      return dir;
    });
    made = mediaDir.then(async (dir) => {
      const path = join(dir, name);
      await run(ffmpegPath(), ["-hide_banner", "-nostdin", "-y", ...recipe, path]);
      return path;
    });
    madeMedia.set(name, made);
  }
  return made;
}

interface CertificateAuthority {
  contextFor(host: string): SecureContext;
}

let authority: Promise<CertificateAuthority> | undefined;

/** The test CA, with one leaf key for the process and one certificate per host, made on first use. */
function certificateAuthority(): Promise<CertificateAuthority> {
  authority ??= (async () => {
    const [caPem, caKeyPem] = await Promise.all([readFile(CA_FILE, "utf8"), readFile(CA_KEY_FILE, "utf8")]);
    const caCertificate = forge.pki.certificateFromPem(caPem);
    const caKey = forge.pki.privateKeyFromPem(caKeyPem);
    const leafKeyPem = generateKeyPairSync("rsa", { modulusLength: 2048 })
      .privateKey.export({ type: "pkcs1", format: "pem" })
      .toString();
    const leafKey = forge.pki.privateKeyFromPem(leafKeyPem);
    const leafPublicKey = forge.pki.setRsaPublicKey(leafKey.n, leafKey.e);
    const contexts = new Map<string, SecureContext>();
    return {
      contextFor(host) {
        let context = contexts.get(host);
        if (!context) {
          const leaf = leafCertificate(host, leafPublicKey, caCertificate, caKey);
          context = createSecureContext({ key: leafKeyPem, cert: `${forge.pki.certificateToPem(leaf)}${caPem}` });
          contexts.set(host, context);
        }
        return context;
      },
    };
  })();
  return authority;
}

function leafCertificate(
  host: string,
  publicKey: forge.pki.rsa.PublicKey,
  caCertificate: forge.pki.Certificate,
  caKey: forge.pki.rsa.PrivateKey,
): forge.pki.Certificate {
  const certificate = forge.pki.createCertificate();
  certificate.publicKey = publicKey;
  // A positive serial: the first byte's high bit clear.
  certificate.serialNumber = `01${randomBytes(15).toString("hex")}`;
  const day = 24 * 60 * 60 * 1000;
  certificate.validity.notBefore = new Date(Date.now() - day);
  certificate.validity.notAfter = new Date(Date.now() + 30 * day);
  certificate.setSubject([{ name: "commonName", value: host }]);
  certificate.setIssuer(caCertificate.subject.attributes);
  const caKeyId = (caCertificate.getExtension("subjectKeyIdentifier") as { subjectKeyIdentifier: string })
    .subjectKeyIdentifier;
  certificate.setExtensions([
    { name: "basicConstraints", cA: false, critical: true },
    { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
    { name: "extKeyUsage", serverAuth: true },
    { name: "subjectAltName", altNames: [isIP(host) ? { type: 7, ip: host } : { type: 2, value: host }] },
    { name: "subjectKeyIdentifier" },
    { name: "authorityKeyIdentifier", keyIdentifier: forge.util.hexToBytes(caKeyId) },
  ]);
  certificate.sign(caKey, forge.md.sha256.create());
  return certificate;
}
