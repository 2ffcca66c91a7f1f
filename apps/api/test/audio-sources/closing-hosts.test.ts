import { once } from "node:events";
import { type AddressInfo, createServer, type Server } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createPublicFetch, type PublicFetch } from "../../src/adapters/net/public-fetch.ts";
import { closing } from "./helpers.ts";

/**
 * A host that sends its whole answer and closes the connection at once, as `python3 -m http.server`
 * and HTTP/1.0 servers do. A reader slower than the socket (a decoder, a full disk) leaves
 * undici's parser paused when the close arrives; undici 7.30.2 then threw an AssertionError from
 * the socket's `end` handler, which no caller can catch, and the process died
 * (patches/undici@7.30.2.patch).
 */
const body = Buffer.alloc(2 * 1024 * 1024, 0x61);
type Framing = "content-length" | "close-delimited" | "truncated";
let server: Server;
let framing: Framing = "content-length";

const publicFetch = closing((): PublicFetch => createPublicFetch({ allowPrivateTargets: true, timeoutMs: 5_000 }));

beforeAll(async () => {
  server = createServer((socket) => {
    socket.once("data", () => {
      const length = { "content-length": body.length, "close-delimited": null, truncated: body.length + 10 }[framing];
      socket.write(
        `HTTP/1.1 200 OK\r\n${length === null ? "" : `Content-Length: ${length}\r\n`}Connection: close\r\n\r\n`,
      );
      socket.end(body);
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
});

afterEach(async () => {
  await publicFetch.closeAll();
});

afterAll(() => {
  server.close();
});

function url(): string {
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/episode.mp3`;
}

/** Reads the answer's body a chunk at a time, a millisecond apart, after the host has closed. */
async function readSlowly(answer: Response): Promise<number> {
  await sleep(300);
  let bytes = 0;
  for await (const chunk of answer.body as ReadableStream<Uint8Array>) {
    bytes += chunk.length;
    await sleep(1);
  }
  return bytes;
}

describe("a host that closes the connection while its answer is still being read", () => {
  it.each<Framing>(["content-length", "close-delimited"])(
    "reads the whole %s body, and the process lives on",
    async (bodyFraming) => {
      framing = bodyFraming;
      const answer = await publicFetch()(url());
      expect(answer.status).toBe(200);
      expect(await readSlowly(answer)).toBe(body.length);
    },
  );

  it("fails a body shorter than its Content-Length, rather than calling it whole", async () => {
    framing = "truncated";
    const answer = await publicFetch()(url());
    await expect(readSlowly(answer)).rejects.toThrow();
  });
});
