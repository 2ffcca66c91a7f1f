import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { pino } from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { SourceError } from "../../src/sources/source-error.ts";
import {
  createYtdlpSidecar,
  defaultYtdlpExtractors,
  findYtdlp,
  type YtdlpEngine,
  type YtdlpSidecar,
  YtdlpStartError,
} from "../../src/sources/ytdlp/ytdlp-sidecar.ts";
import { FakeStreamable, readyProjectYtdlp } from "./harness.ts";

/** The sidecar's log lines, parsed. */
function capturedLogger() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level: "debug" }, sink), lines };
}

/** Rejects with the error the promise rejected with, or fails when it resolved. */
async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the call to fail");
}

async function until(condition: () => boolean, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const extractors = [...defaultYtdlpExtractors, "Streamable"];
const deadlineMs = 30_000;

let engine: YtdlpEngine;
let fake: FakeStreamable;
const sidecars: YtdlpSidecar[] = [];

function sidecar(options: Partial<Parameters<typeof createYtdlpSidecar>[0]> = {}) {
  const { logger, lines } = capturedLogger();
  const created = createYtdlpSidecar({
    ...engine,
    extractors,
    caFile: fake.certificates.caFile,
    socketTimeoutSeconds: 60,
    logger,
    ...options,
  });
  sidecars.push(created);
  return { sidecar: created, lines };
}

beforeAll(async () => {
  engine = readyProjectYtdlp();
  fake = await FakeStreamable.start();
  fake.video("clip1", {
    large: { bytes: randomBytes(300_000), width: 1280 },
    mobile: { bytes: randomBytes(120_000), width: 640 },
  });
  fake.video("unsized", { mobile: { bytes: randomBytes(400_000), width: 640, contentLength: false } });
}, 180_000);

afterEach(async () => {
  await Promise.all(sidecars.splice(0).map((created) => created.close()));
});

afterAll(async () => {
  await fake?.close();
});

describe("the yt-dlp sidecar", () => {
  it("answers the version of the yt-dlp installed and the allowed extractors it has, never the generic one", async () => {
    const { sidecar: engineSidecar } = sidecar({ extractors: [...extractors, "Generic", "NoSuchExtractor"] });
    const version = await engineSidecar.version();
    expect(version.version).toBe("2026.08.19");
    expect(version.extractors).toEqual(extractors);
  });

  it("extracts through the call's proxy, trusting the extra CA for the platform's TLS", async () => {
    const { sidecar: engineSidecar } = sidecar();
    const info = await engineSidecar.extract("https://streamable.com/clip1", {
      proxy: fake.proxyUrl("call-extract"),
      deadlineMs,
    });
    expect(info).toMatchObject({ id: "clip1", title: "Video clip1", extractor_key: "Streamable", duration: 12.5 });
    expect(info.formats?.map((format) => format.format_id).sort()).toEqual(["large", "mobile"]);
    const tunnel = fake.tunnels.find((candidate) => candidate.target === "ajax.streamable.com:443");
    expect(tunnel?.authorization).toBe(`Basic ${Buffer.from("call-extract:x").toString("base64")}`);
  });

  it("refuses a platform certificate its CA file does not vouch for, as a connection failure, OpenSSL's words logged only", async () => {
    const { sidecar: engineSidecar, lines } = sidecar({ caFile: undefined });
    const error = await failureOf(
      engineSidecar.extract("https://streamable.com/clip1", { proxy: fake.proxyUrl("call-no-ca"), deadlineMs }),
    );
    expect(error).toBeInstanceOf(SourceError);
    expect((error as SourceError).kind).toBe("connection");
    expect((error as SourceError).message).toBe("The connection to the platform failed.");
    const logged = lines.find((line) => line.msg === "yt-dlp call failed");
    expect(JSON.stringify(logged)).toMatch(/CERTIFICATE_VERIFY_FAILED/);
  });

  it("refuses the generic extractor: a plain https URL is unsupported and never fetched", async () => {
    const { sidecar: engineSidecar } = sidecar({ extractors: [...extractors, "Generic"] });
    const before = { seen: fake.seen.length, tunnels: fake.tunnels.length };
    const error = await failureOf(
      engineSidecar.extract(`https://127.0.0.1:${fake.httpsPort}/videos/clip1`, {
        proxy: fake.proxyUrl("call-generic"),
        deadlineMs,
      }),
    );
    expect(error).toBeInstanceOf(SourceError);
    expect((error as SourceError).kind).toBe("unsupported");
    expect({ seen: fake.seen.length, tunnels: fake.tunnels.length }).toEqual(before);
  });

  it("restarts a process killed mid-call and sends the call again, which is answered", async () => {
    fake.video("held", { mobile: { bytes: randomBytes(1000), width: 640 } });
    const release = fake.hold("/videos/held");
    const { sidecar: engineSidecar, lines } = sidecar();
    const answer = engineSidecar.extract("https://streamable.com/held", {
      proxy: fake.proxyUrl("call-held"),
      deadlineMs,
    });
    await until(() => fake.requestsFor("/videos/held") === 1, "the held request");
    const firstPid = engineSidecar.pid;
    process.kill(firstPid as number, "SIGKILL");
    await until(() => fake.requestsFor("/videos/held") === 2, "the call sent again");
    release();
    await expect(answer).resolves.toMatchObject({ id: "held", title: "Video held" });
    expect(engineSidecar.pid).toBeDefined();
    expect(engineSidecar.pid).not.toBe(firstPid);
    expect(lines.some((line) => line.msg === "the yt-dlp sidecar ended; starting it again")).toBe(true);
  });

  it("fails a hung call at its deadline while a concurrent call completes, then replaces the process", async () => {
    fake.route("/videos/hangs", () => undefined);
    const { sidecar: engineSidecar } = sidecar();
    // Started first, so the hung call's deadline is spent waiting on the platform, not on Python starting.
    await engineSidecar.version({ deadlineMs });
    const hung = engineSidecar.extract("https://streamable.com/hangs", {
      proxy: fake.proxyUrl("call-hangs"),
      deadlineMs: 3_000,
    });
    await until(() => fake.requestsFor("/videos/hangs") >= 1, "the hanging request");
    const firstPid = engineSidecar.pid;
    const completed = engineSidecar.extract("https://streamable.com/clip1", {
      proxy: fake.proxyUrl("call-beside"),
      deadlineMs,
    });
    await expect(completed).resolves.toMatchObject({ id: "clip1" });
    const error = await failureOf(hung);
    expect(error).toBeInstanceOf(SourceError);
    expect((error as SourceError).kind).toBe("timeout");
    // The abandoned thread still waits on its socket: with nothing else to run, the process goes.
    await until(() => engineSidecar.pid === undefined, "the process to be recycled");
    await expect(
      engineSidecar.extract("https://streamable.com/clip1", { proxy: fake.proxyUrl("call-after"), deadlineMs }),
    ).resolves.toMatchObject({ id: "clip1" });
    expect(engineSidecar.pid).not.toBe(firstPid);
  });

  describe("sharing the calls between accounts", () => {
    beforeAll(() => {
      fake.video("slow", { mobile: { bytes: randomBytes(1000), width: 640 } });
      fake.video("next", { mobile: { bytes: randomBytes(1000), width: 640 } });
    });

    it("runs one account's calls within its share, so another account's call runs while they wait", async () => {
      const release = fake.hold("/videos/slow");
      try {
        const { sidecar: engineSidecar } = sidecar({ maxConcurrentCalls: 3, maxCallsPerAccount: 2 });
        const before = fake.requestsFor("/videos/slow");
        const slowRequests = () => fake.requestsFor("/videos/slow") - before;
        const busy = Array.from({ length: 5 }, (_, index) =>
          engineSidecar.extract("https://streamable.com/slow", {
            proxy: fake.proxyUrl(`call-busy-${index}`),
            deadlineMs,
            account: "acct_busy",
          }),
        );
        await until(() => slowRequests() >= 2, "the busy account's first calls");
        const other = await engineSidecar.extract("https://streamable.com/clip1", {
          proxy: fake.proxyUrl("call-other"),
          deadlineMs,
          account: "acct_other",
        });
        expect(other).toMatchObject({ id: "clip1" });
        // The busy account's backlog has not moved: its share is running, held, and the rest wait.
        expect(slowRequests()).toBe(2);
        release();
        for (const info of await Promise.all(busy)) expect(info).toMatchObject({ id: "slow" });
        expect(slowRequests()).toBe(5);
      } finally {
        release();
      }
    });

    it("gives the next turn to an account that has had none, not to the first call waiting", async () => {
      const release = fake.hold("/videos/slow");
      try {
        const { sidecar: engineSidecar } = sidecar({ maxConcurrentCalls: 1, maxCallsPerAccount: 1 });
        const before = fake.seen.length;
        const first = engineSidecar.extract("https://streamable.com/slow", {
          proxy: fake.proxyUrl("call-first"),
          deadlineMs,
          account: "acct_busy",
        });
        await until(() => fake.seen.length > before, "the first call");
        const options = (call: string, account: string) => ({ proxy: fake.proxyUrl(call), deadlineMs, account });
        const later = [
          engineSidecar.extract("https://streamable.com/next", options("call-busy-2", "acct_busy")),
          engineSidecar.extract("https://streamable.com/next", options("call-busy-3", "acct_busy")),
          engineSidecar.extract("https://streamable.com/clip1", options("call-other", "acct_other")),
        ];
        release();
        await Promise.all([first, ...later]);
        expect(fake.seen.slice(before).map((seen) => seen.path)).toEqual([
          "/videos/slow",
          "/videos/clip1",
          "/videos/next",
          "/videos/next",
        ]);
      } finally {
        release();
      }
    });
  });

  it("keeps concurrent calls independent: failures answer their own call only", async () => {
    fake.route("/captions/clip1.vtt", (_req, res) => {
      res
        .writeHead(200, { "content-type": "text/vtt; charset=utf-8" })
        .end("WEBVTT\n\n00:00.000 --> 00:01.000\nHéllo\n");
    });
    const { sidecar: engineSidecar } = sidecar({ maxConcurrentCalls: 3 });
    const options = (call: string) => ({ proxy: fake.proxyUrl(call), deadlineMs });
    const [found, missing, unsupported, captions, version] = await Promise.allSettled([
      engineSidecar.extract("https://streamable.com/clip1", options("call-a")),
      engineSidecar.extract("https://streamable.com/missing", options("call-b")),
      engineSidecar.extract("https://example.com/a-page", options("call-c")),
      engineSidecar.fetchText("https://cdn.streamable.com/captions/clip1.vtt", {
        ...options("call-d"),
        maxBytes: 1000,
      }),
      engineSidecar.version(),
    ]);
    expect(found).toMatchObject({ status: "fulfilled", value: { id: "clip1" } });
    expect(missing).toMatchObject({ status: "rejected", reason: { kind: "unavailable" } });
    expect(unsupported).toMatchObject({ status: "rejected", reason: { kind: "unsupported" } });
    expect(captions).toEqual({ status: "fulfilled", value: "WEBVTT\n\n00:00.000 --> 00:01.000\nHéllo\n" });
    expect(version).toMatchObject({ status: "fulfilled", value: { version: "2026.08.19" } });
  });

  it("refuses a subtitle file larger than the call allows", async () => {
    fake.route("/captions/long.vtt", (_req, res) => {
      res.writeHead(200, { "content-type": "text/vtt" }).end(`WEBVTT\n\n${"x".repeat(5000)}\n`);
    });
    const { sidecar: engineSidecar } = sidecar();
    const error = await failureOf(
      engineSidecar.fetchText("https://cdn.streamable.com/captions/long.vtt", {
        proxy: fake.proxyUrl("call-long"),
        maxBytes: 1000,
        deadlineMs,
      }),
    );
    expect(error).toMatchObject({ kind: "too_large" });
  });

  it("fails a subtitle file whose connection ends before its Content-Length, as a connection failure", async () => {
    fake.route("/captions/cut.vtt", (_req, res) => {
      res.writeHead(200, { "content-type": "text/vtt", "content-length": 5000 });
      res.write(`WEBVTT\n\n${"x".repeat(2000)}`, () => res.socket?.destroy());
    });
    const { sidecar: engineSidecar, lines } = sidecar();
    const error = await failureOf(
      engineSidecar.fetchText("https://cdn.streamable.com/captions/cut.vtt", {
        proxy: fake.proxyUrl("call-cut"),
        maxBytes: 10_000,
        deadlineMs,
      }),
    );
    expect(error).toBeInstanceOf(SourceError);
    expect((error as SourceError).kind).toBe("connection");
    expect((error as SourceError).message).toBe("The connection to the platform failed.");
    const logged = lines.find((line) => line.msg === "yt-dlp call failed");
    expect(JSON.stringify(logged)).toMatch(/bytes read/);
  });

  describe("reading the files of one origin", () => {
    const pieces = ["/captions/piece-1.vtt", "/captions/piece-2.vtt", "/captions/piece-3.vtt"];
    beforeAll(() => {
      for (const [index, path] of pieces.entries()) {
        fake.route(path, (_req, res) => {
          res.writeHead(200, { "content-type": "text/vtt; charset=utf-8" }).end(`WEBVTT\n\npiece ${index + 1}\n`);
        });
      }
    });

    it("reads them in order through one tunnel, kept open between them", async () => {
      const { sidecar: engineSidecar } = sidecar();
      const before = { tunnels: fake.tunnels.length, seen: fake.seen.length };
      const texts = await engineSidecar.fetchTexts(
        pieces.map((path) => `https://cdn.streamable.com${path}`),
        { proxy: fake.proxyUrl("call-pieces"), maxBytes: 10_000, deadlineMs },
      );
      expect(texts).toEqual(["WEBVTT\n\npiece 1\n", "WEBVTT\n\npiece 2\n", "WEBVTT\n\npiece 3\n"]);
      expect(fake.seen.slice(before.seen).map((seen) => seen.path)).toEqual(pieces);
      expect(fake.tunnels.slice(before.tunnels)).toEqual([
        {
          target: "cdn.streamable.com:443",
          authorization: `Basic ${Buffer.from("call-pieces:x").toString("base64")}`,
        },
      ]);
    });

    it("refuses them past the bytes allowed together, though each is within them", async () => {
      const { sidecar: engineSidecar } = sidecar();
      const error = await failureOf(
        engineSidecar.fetchTexts(
          pieces.map((path) => `https://cdn.streamable.com${path}`),
          { proxy: fake.proxyUrl("call-pieces-large"), maxBytes: 40, deadlineMs },
        ),
      );
      expect(error).toMatchObject({ kind: "too_large" });
    });

    it("fails on an answer other than 200, with its status", async () => {
      const { sidecar: engineSidecar } = sidecar();
      const error = await failureOf(
        engineSidecar.fetchTexts(
          ["https://cdn.streamable.com/captions/piece-1.vtt", "https://cdn.streamable.com/captions/gone.vtt"],
          {
            proxy: fake.proxyUrl("call-pieces-gone"),
            maxBytes: 10_000,
            deadlineMs,
          },
        ),
      );
      expect(error).toMatchObject({ kind: "unavailable" });
    });

    it("refuses files of two origins, fetching neither", async () => {
      const { sidecar: engineSidecar } = sidecar();
      const before = fake.tunnels.length;
      const error = await failureOf(
        engineSidecar.fetchTexts(
          ["https://cdn.streamable.com/captions/piece-1.vtt", "https://streamable.com/captions/piece-2.vtt"],
          {
            proxy: fake.proxyUrl("call-pieces-two"),
            maxBytes: 10_000,
            deadlineMs,
          },
        ),
      );
      expect(error).toBeInstanceOf(SourceError);
      expect(fake.tunnels.length).toBe(before);
    });
  });

  describe("downloading audio", () => {
    let directory: string;
    beforeAll(() => {
      directory = mkdtempSync(join(tmpdir(), "verbatim-ytdlp-audio-"));
    });
    afterAll(() => rmSync(directory, { recursive: true, force: true }));

    it("downloads the smallest format with sound when there is no audio-only one, as served", async () => {
      const target = join(directory, "smallest");
      mkdirSync(target);
      const { sidecar: engineSidecar } = sidecar();
      const download = await engineSidecar.downloadAudio("https://streamable.com/clip1", target, {
        proxy: fake.proxyUrl("call-download"),
        maxBytes: 1_000_000,
        deadlineMs,
      });
      expect(download.bytes).toBe(120_000);
      expect(download.path.startsWith(target)).toBe(true);
      expect(readFileSync(download.path).length).toBe(120_000);
      expect(download.info).toMatchObject({ id: "clip1", format_id: "mobile" });
      expect(readdirSync(target)).toEqual([download.path.slice(target.length + 1)]);
    });

    it("stops at the byte limit when the server sends no Content-Length, and leaves no file", async () => {
      const target = join(directory, "unsized");
      mkdirSync(target);
      const { sidecar: engineSidecar } = sidecar();
      const error = await failureOf(
        engineSidecar.downloadAudio("https://streamable.com/unsized", target, {
          proxy: fake.proxyUrl("call-unsized"),
          maxBytes: 100_000,
          deadlineMs,
        }),
      );
      expect(error).toMatchObject({ kind: "too_large" });
      expect(readdirSync(target)).toEqual([]);
    });
  });

  it("keeps stdout for answers: what Python code prints goes to the log, and every call is answered", async () => {
    // A module imported at start-up (sitecustomize) that makes the JSON parser, which the sidecar
    // calls on each request, print and write to file descriptor 1 as a careless library would.
    const noisy = mkdtempSync(join(tmpdir(), "verbatim-ytdlp-noisy-"));
    writeFileSync(
      join(noisy, "sitecustomize.py"),
      [
        "import json, os",
        "_loads = json.loads",
        "def loads(*args, **kwargs):",
        "    print('a print from a library')",
        "    os.write(1, b'a write to file descriptor 1\\n')",
        "    return _loads(*args, **kwargs)",
        "json.loads = loads",
        "",
      ].join("\n"),
    );
    try {
      const { sidecar: engineSidecar, lines } = sidecar({ pythonPath: noisy });
      const [info, version] = await Promise.all([
        engineSidecar.extract("https://streamable.com/clip1", { proxy: fake.proxyUrl("call-noisy"), deadlineMs }),
        engineSidecar.version(),
      ]);
      expect(info).toMatchObject({ id: "clip1" });
      expect(version.version).toBe("2026.08.19");
      const messages = lines.map((line) => String(line.msg));
      expect(messages).toContain("yt-dlp: a print from a library");
      expect(messages).toContain("yt-dlp: a write to file descriptor 1");
      expect(messages).not.toContain("the yt-dlp sidecar wrote a line that is not JSON");
    } finally {
      rmSync(noisy, { recursive: true, force: true });
    }
  });

  it("runs a yt-dlp zipapp that VERBATIM_YTDLP names, imported from PYTHONPATH", async () => {
    const scratch = mkdtempSync(join(tmpdir(), "verbatim-ytdlp-zipapp-"));
    try {
      const app = join(scratch, "app");
      mkdirSync(app);
      const sitePackages = execFileSync(
        engine.python,
        ["-c", "import os, yt_dlp; print(os.path.dirname(yt_dlp.__path__[0]))"],
        {
          encoding: "utf8",
        },
      ).trim();
      cpSync(join(sitePackages, "yt_dlp"), join(app, "yt_dlp"), { recursive: true });
      writeFileSync(join(app, "__main__.py"), "import yt_dlp\nyt_dlp.main()\n");
      const zipapp = join(scratch, "yt-dlp");
      execFileSync(engine.python, ["-m", "zipapp", app, "--python", "/usr/bin/env python3", "--output", zipapp]);
      const found = findYtdlp({ VERBATIM_YTDLP: zipapp });
      expect(found).toEqual({ python: "python3", pythonPath: zipapp, origin: "VERBATIM_YTDLP" });
      const { sidecar: engineSidecar } = sidecar({ ...found });
      await expect(engineSidecar.version()).resolves.toMatchObject({ version: "2026.08.19" });
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it("fails its calls with a start error when the interpreter cannot run", async () => {
    const { sidecar: engineSidecar } = sidecar({ python: "/nonexistent/python3" });
    await expect(engineSidecar.version()).rejects.toBeInstanceOf(YtdlpStartError);
  });
});
