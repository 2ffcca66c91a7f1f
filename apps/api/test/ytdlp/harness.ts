import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { type AddressInfo, connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { findYtdlp, type YtdlpEngine } from "../../src/sources/ytdlp/find-ytdlp.ts";

const repositoryRoot = fileURLToPath(new URL("../../../../", import.meta.url));

/** Makes apps/api/.ytdlp ready (scripts/ytdlp-env.mjs, as CI and `pnpm install` do) and finds it. */
export function readyProjectYtdlp(): YtdlpEngine {
  const result = spawnSync(process.execPath, [join(repositoryRoot, "scripts", "ytdlp-env.mjs")], {
    encoding: "utf8",
  });
  if (result.status !== 0) throw new Error(`scripts/ytdlp-env.mjs failed: ${result.stderr}`);
  const engine = findYtdlp({});
  if (!engine) throw new Error("scripts/ytdlp-env.mjs succeeded but apps/api/.ytdlp has no interpreter");
  return engine;
}

/** A certificate authority of the test's own and a server certificate it signed for the fake hosts. */
export interface TestCertificates {
  caFile: string;
  key: Buffer;
  cert: Buffer;
}

export function makeCertificates(directory: string, hosts: string[]): TestCertificates {
  const path = (name: string) => join(directory, name);
  const openssl = (...args: string[]) => execFileSync("openssl", args, { stdio: "pipe" });
  openssl(
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-days",
    "2",
    "-subj",
    "/CN=Verbatim test CA",
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
    "-keyout",
    path("ca.key"),
    "-out",
    path("ca.pem"),
  );
  openssl(
    "req",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-subj",
    `/CN=${hosts[0]}`,
    "-keyout",
    path("server.key"),
    "-out",
    path("server.csr"),
  );
  writeFileSync(
    path("server.ext"),
    `subjectAltName=${hosts.map((host) => `DNS:${host}`).join(",")}\nextendedKeyUsage=serverAuth\n`,
  );
  openssl(
    "x509",
    "-req",
    "-in",
    path("server.csr"),
    "-CA",
    path("ca.pem"),
    "-CAkey",
    path("ca.key"),
    "-CAcreateserial",
    "-days",
    "2",
    "-extfile",
    path("server.ext"),
    "-out",
    path("server.pem"),
  );
  return { caFile: path("ca.pem"), key: readFileSync(path("server.key")), cert: readFileSync(path("server.pem")) };
}

/** A request the fake platform received. */
export interface Seen {
  host: string;
  path: string;
}

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * A stand-in for Streamable (one JSON request per video at ajax.streamable.com, files on
 * cdn.streamable.com): an HTTPS server on loopback with a certificate from the test's own CA,
 * reached through a CONNECT proxy that sends every tunnel to it, whatever host was asked for.
 * Handlers are registered by path; a path without one answers 404.
 */
export class FakeStreamable {
  readonly seen: Seen[] = [];
  /** Each CONNECT: the host asked for and its Proxy-Authorization header. */
  readonly tunnels: { target: string; authorization: string | undefined }[] = [];
  readonly #routes = new Map<string, Handler>();
  readonly #sockets = new Set<Socket>();

  private constructor(
    readonly directory: string,
    readonly certificates: TestCertificates,
    private readonly https: ReturnType<typeof createHttpsServer>,
    private readonly proxy: ReturnType<typeof createHttpServer>,
  ) {}

  static async start(): Promise<FakeStreamable> {
    const directory = mkdtempSync(join(tmpdir(), "verbatim-ytdlp-"));
    const certificates = makeCertificates(directory, ["streamable.com", "*.streamable.com"]);
    const https = createHttpsServer({ key: certificates.key, cert: certificates.cert });
    const proxy = createHttpServer();
    const fake = new FakeStreamable(directory, certificates, https, proxy);
    https.on("request", (req, res) => {
      const path = new URL(req.url ?? "/", "https://x").pathname;
      fake.seen.push({ host: req.headers.host ?? "", path });
      const handler = fake.#routes.get(path);
      if (handler) handler(req, res);
      else res.writeHead(404, { "content-type": "application/json" }).end('{"error":"not found"}');
    });
    for (const server of [https, proxy]) server.on("connection", (socket: Socket) => fake.#track(socket));
    proxy.on("connect", (req, clientSocket, head) => {
      fake.tunnels.push({ target: req.url ?? "", authorization: req.headers["proxy-authorization"] });
      const target = connect(fake.httpsPort, "127.0.0.1", () => {
        clientSocket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        target.write(head);
        target.pipe(clientSocket);
        clientSocket.pipe(target);
      });
      fake.#track(target);
      target.on("error", () => clientSocket.destroy());
      clientSocket.on("error", () => target.destroy());
    });
    await Promise.all(
      [https, proxy].map((server) => new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))),
    );
    return fake;
  }

  get httpsPort(): number {
    return (this.https.address() as AddressInfo).port;
  }

  /** The proxy URL of one call, with the call's name as its user (as the egress guard names calls). */
  proxyUrl(call: string): string {
    return `http://${call}:x@127.0.0.1:${(this.proxy.address() as AddressInfo).port}`;
  }

  route(path: string, handler: Handler): void {
    this.#routes.set(path, handler);
  }

  /** Holds the path's answers until the returned function is called; they are then answered as before. */
  hold(path: string): () => void {
    const handler = this.#routes.get(path);
    if (!handler) throw new Error(`no route for ${path}`);
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.route(path, (req, res) => void released.then(() => handler(req, res)));
    return release;
  }

  /** A video of the ajax API with its files served at cdn.streamable.com/video/<id>-<name>.mp4. */
  video(id: string, files: Record<string, { bytes: Buffer; width: number; contentLength?: boolean }>): void {
    const entries = Object.entries(files).map(([name, file]) => {
      const path = `/video/${id}-${name}.mp4`;
      this.route(path, (_req, res) => {
        const headers: Record<string, string | number> = { "content-type": "video/mp4" };
        if (file.contentLength !== false) headers["content-length"] = file.bytes.length;
        res.writeHead(200, headers);
        // Written in pieces, so a server without Content-Length sends it chunked.
        for (let offset = 0; offset < file.bytes.length; offset += 16_384) {
          res.write(file.bytes.subarray(offset, offset + 16_384));
        }
        res.end();
      });
      return [
        name,
        {
          url: `//cdn.streamable.com${path}`,
          width: file.width,
          height: Math.round((file.width * 9) / 16),
          size: file.contentLength === false ? undefined : file.bytes.length,
          bitrate: file.width * 1000,
          input_metadata: { video_codec_name: "h264", audio_codec_name: "aac" },
        },
      ];
    });
    this.route(`/videos/${id}`, (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          status: 2,
          title: `Video ${id}`,
          description: "A video served by the test's fake Streamable.",
          duration: 12.5,
          plays: 7,
          owner: { user_name: "verbatim" },
          files: Object.fromEntries(entries),
        }),
      );
    });
  }

  /** Requests the fake received for a path. */
  requestsFor(path: string): number {
    return this.seen.filter((seen) => seen.path === path).length;
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await Promise.all([this.https, this.proxy].map((server) => new Promise((resolve) => server.close(resolve))));
    rmSync(this.directory, { recursive: true, force: true });
  }

  #track(socket: Socket): void {
    this.#sockets.add(socket);
    socket.on("close", () => this.#sockets.delete(socket));
  }
}
