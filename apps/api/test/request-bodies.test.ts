import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../src/app.ts";
import { createHttpServer } from "../src/http/http-server.ts";
import { type Answer, type ErrorBodyShape, expectErrorEnvelope, expectIssueAt, send } from "./support/http.ts";
import { startServer, type TestServer } from "./support/server.ts";

/** The shortened deadlines of these tests' server: the defaults (10 s and 60 s) would only make them slow. */
const publicBodyDeadlineMs = 1000;
const bodyDeadlineMs = 1500;

/** What a raw exchange sends after the request's head: all at once, or one byte at a time until the server hangs up. */
type Sending = { body: string } | { trickle: string; everyMs: number };

/**
 * Sends a request over a raw socket, which may declare more than it sends or send it slowly,
 * and resolves with the answer once the server has closed the connection.
 */
function exchange(baseUrl: string, head: string, sending: Sending = { body: "" }): Promise<Answer> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const received: Buffer[] = [];
    let trickling: NodeJS.Timeout | undefined;
    socket.on("data", (chunk: Buffer) => received.push(chunk));
    // Writing on after the server hung up fails; the answer is what matters.
    socket.on("error", () => {});
    socket.on("close", () => {
      clearInterval(trickling);
      const answer = parseAnswer(Buffer.concat(received));
      if (answer) resolve(answer);
      else reject(new Error("the server closed the connection without an answer"));
    });
    socket.write(head);
    if ("body" in sending) {
      socket.write(sending.body);
      return;
    }
    trickling = setInterval(() => {
      if (!socket.destroyed) socket.write(sending.trickle);
    }, sending.everyMs);
  });
}

function parseAnswer(raw: Buffer): Answer | undefined {
  const end = raw.indexOf("\r\n\r\n");
  if (end < 0) return undefined;
  const [statusLine = "", ...lines] = raw.subarray(0, end).toString("latin1").split("\r\n");
  const headers = new Headers();
  for (const line of lines) headers.append(line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 1).trim());
  // What follows the answer's body (Node's own 408 when it gives up on the request) is not part of it.
  const length = Number(headers.get("content-length") ?? 0);
  const text = raw.subarray(end + 4, end + 4 + length).toString("utf8");
  const body = headers.get("content-type")?.startsWith("application/json") ? (JSON.parse(text) as unknown) : text;
  return { status: Number(statusLine.split(" ")[1]), headers, text, body };
}

function head(method: string, path: string, headers: Record<string, string>): string {
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${lines.join("")}\r\n`;
}

/** One chunk of a chunked body. */
function chunk(text: string): string {
  return `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;
}

function expectRefusedAndClosed(answer: Answer, status: number, message: RegExp): void {
  expectErrorEnvelope(answer, status, "invalid_request");
  expectIssueAt(answer, "/body");
  expect((answer.body as ErrorBodyShape).error?.message, answer.text).toMatch(message);
  expect(answer.headers.get("connection"), answer.text).toBe("close");
}

const json = { "content-type": "application/json" };

let server: TestServer;

beforeAll(async () => {
  server = await startServer({ deps: { config: { version: "0.0.0-test", publicBodyDeadlineMs, bodyDeadlineMs } } });
});
afterAll(() => server?.close());

describe("413 before parsing: an operation without a key reads at most 1 KiB", () => {
  it("answers a 2 KiB sign-in body 413 even when it is not JSON: it was never parsed", async () => {
    const answer = await send(server, {
      method: "POST",
      path: "/dashboard/api/session",
      raw: `{${"[".repeat(2047)}`,
      headers: json,
      authorized: false,
    });
    expectErrorEnvelope(answer, 413, "invalid_request");
    expect((answer.body as ErrorBodyShape).error?.issues).toEqual([
      { path: "/body", message: "must not be larger than 1 KiB" },
    ]);
  });

  it("refuses a declared Content-Length over 1 KiB without waiting for a byte of it, and hangs up", async () => {
    const answer = await exchange(
      server.baseUrl,
      head("POST", "/dashboard/api/session", { ...json, "content-length": String(1024 * 1024 * 1024) }),
    );
    expectRefusedAndClosed(answer, 413, /larger than 1 KiB/);
  });

  it("cuts a chunked sign-in body off once it passes 1 KiB, without waiting for its end, and hangs up", async () => {
    const answer = await exchange(
      server.baseUrl,
      head("POST", "/dashboard/api/session", { ...json, "transfer-encoding": "chunked" }),
      { body: chunk("[".repeat(1000)) + chunk("[".repeat(1000)) },
    );
    expectRefusedAndClosed(answer, 413, /larger than 1 KiB/);
  });

  it("hangs up once a sign-in body of another media type passes 1 KiB, after refusing its type", async () => {
    const answer = await exchange(
      server.baseUrl,
      head("POST", "/dashboard/api/session", { "content-type": "text/plain", "transfer-encoding": "chunked" }),
      { body: chunk("x".repeat(10)) + chunk("x".repeat(1000)) + chunk("x".repeat(1000)) },
    );
    expectErrorEnvelope(answer, 400, "invalid_request");
    expectIssueAt(answer, "/headers/content-type");
    expect(answer.headers.get("connection"), answer.text).toBe("close");
  });

  it("still signs in with a valid body of about 1 KiB", async () => {
    const raw = JSON.stringify({ api_key: server.key.key }).replace("{", `{${" ".repeat(950)}`);
    expect(Buffer.byteLength(raw)).toBeGreaterThan(1000);
    expect(Buffer.byteLength(raw)).toBeLessThanOrEqual(1024);
    const answer = await send(server, {
      method: "POST",
      path: "/dashboard/api/session",
      raw,
      headers: json,
      authorized: false,
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.headers.getSetCookie()[0]).toMatch(/^verbatim_session=/);
  });
});

describe("400 for a body still arriving at its deadline", () => {
  it("answers a sign-in body sent a byte at a time once the deadline passes, and hangs up", async () => {
    const answer = await exchange(
      server.baseUrl,
      head("POST", "/dashboard/api/session", { ...json, "content-length": "60" }),
      { trickle: " ", everyMs: 200 },
    );
    expectRefusedAndClosed(answer, 400, new RegExp(`did not arrive within ${publicBodyDeadlineMs / 1000} seconds`));
  });

  it("answers a keyed body sent a byte at a time once its own deadline passes, and hangs up", async () => {
    const answer = await exchange(
      server.baseUrl,
      head("POST", "/api/v2/transcripts/video", {
        ...json,
        authorization: `Bearer ${server.key.key}`,
        "content-length": "1000",
      }),
      { trickle: " ", everyMs: 200 },
    );
    expectRefusedAndClosed(answer, 400, new RegExp(`did not arrive within ${bodyDeadlineMs / 1000} seconds`));
  });
});

describe("413 for a keyed body past 1 MiB, without waiting for its end", () => {
  it("cuts a chunked body off once it passes 1 MiB, and hangs up", async () => {
    const answer = await exchange(
      server.baseUrl,
      head("POST", "/api/v2/transcripts/video", {
        ...json,
        authorization: `Bearer ${server.key.key}`,
        "transfer-encoding": "chunked",
      }),
      { body: chunk("[".repeat(1024 * 1024)) + chunk("[".repeat(16)) },
    );
    expectRefusedAndClosed(answer, 413, /larger than 1 MiB/);
  });
});

describe("the server hangs up on a request that does not arrive in time, whatever it is for", () => {
  let http: Server;
  let baseUrl: string;
  beforeAll(async () => {
    http = createHttpServer(createApp(server.deps), { headersMs: 500, requestMs: 1000 });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    baseUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    http?.closeAllConnections();
    await new Promise((resolve) => http?.close(resolve));
  });

  it("closes the connection of a GET /health whose body no operation reads, after answering it", async () => {
    const answer = await exchange(baseUrl, head("GET", "/api/v2/health", { ...json, "transfer-encoding": "chunked" }), {
      trickle: chunk(" "),
      everyMs: 200,
    });
    expect(answer.status, answer.text).toBe(200);
  });

  it("closes a connection whose headers do not arrive in time, answering 408 as Node does", async () => {
    const answer = await exchange(baseUrl, "GET /api/v2/health HTTP/1.1\r\nHost: 127.0.0.1\r\n", {
      trickle: "X",
      everyMs: 200,
    });
    expect(answer.status, answer.text).toBe(408);
  });
});
