import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closing, failure, testAudioSources } from "./helpers.ts";

const audioSources = closing(testAudioSources);

describe("media downloads and compression", () => {
  // 50 MB of zeros, 50 kB on the wire: served gzipped whatever the request asked.
  const inflated = 50 * 1024 * 1024;
  const compressed = gzipSync(Buffer.alloc(inflated));
  const received: IncomingHttpHeaders[] = [];
  const server = createServer((request, response) => {
    received.push(request.headers);
    response.writeHead(200, {
      "content-type": "audio/mpeg",
      "content-encoding": "gzip",
      "content-length": String(compressed.length),
    });
    response.end(compressed);
  });
  let origin = "";
  let workDir = "";

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    workDir = mkdtempSync(join(tmpdir(), "verbatim-compressed-"));
  });
  afterAll(async () => {
    await audioSources.closeAll();
    await new Promise((resolve) => server.close(resolve));
    rmSync(workDir, { recursive: true, force: true });
  });

  it("asks for the media uncompressed", async () => {
    await audioSources().download(`${origin}/episode.mp3`, join(workDir, "asked.mp3"));
    expect(received.at(-1)?.["accept-encoding"]).toBe("identity");
  });

  it("counts the bytes written, not the compressed Content-Length, against the download limit", async () => {
    const destination = join(workDir, "bomb.mp3");
    const error = await failure(
      audioSources({ downloadMaxBytes: 1024 * 1024 }).download(`${origin}/bomb.mp3`, destination),
    );
    expect([error.code, error.number]).toEqual(["audio_ineligible", 3004]);
    expect(existsSync(destination)).toBe(false);
  });
});
