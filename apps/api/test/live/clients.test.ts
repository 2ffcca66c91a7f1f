import { spawn } from "node:child_process";
import { createServer, request as httpRequest, type Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { dirname } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { LiveEvent } from "@verbatim/sdk";
import { type BuiltCli, buildCli, runCli } from "@verbatim/testkit/cli-process";
import { audioFixture } from "@verbatim/testkit/fake-podcast-host";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../../src/store/database.ts";
import { callTool, connectOverHttp } from "../mcp/mcp-client.ts";
import { sdkFor } from "../support/sdk.ts";
import { openTestStore } from "../support/store.ts";
import type { LiveServer } from "./harness.ts";
import { startLiveServer } from "./harness.ts";
import { type CutSegment, cutRecording, type LiveHlsServer, startLiveHlsServer } from "./live-hls.ts";

// The clients of live sessions against a live server: the Node SDK's session handle, which
// reconnects with Last-Event-ID, `transcript <link> --live` as a process, and the MCP tools.

let store: Store;
let server: LiveServer;
let hls: LiveHlsServer;
let jfk: CutSegment[];
let cli: BuiltCli;

beforeAll(async () => {
  const built = buildCli(dirname(createRequire(import.meta.url).resolve("@verbatim/sdk/package.json")));
  store = await openTestStore();
  server = await startLiveServer(store);
  hls = await startLiveHlsServer();
  jfk = await cutRecording(audioFixture("whisper-cpp/jfk.wav"));
  cli = await built;
}, 120_000);
afterAll(async () => {
  await server?.close();
  await hls?.close();
  await cli?.remove();
  await store?.close();
});

/** The account's key and the server, as the command line reads them. */
function environment(): Record<string, string> {
  return { VERBATIM_API_KEY: server.key.key, VERBATIM_BASE_URL: server.baseUrl };
}

/**
 * A proxy in front of the server that cuts the first event stream it carries right after its
 * first durable event, as a dropped connection would; everything else passes unchanged.
 */
async function droppingProxy(): Promise<{ url: string; streams: () => number; close(): Promise<void> }> {
  const target = new URL(server.baseUrl);
  let streams = 0;
  const proxy: Server = createServer((incoming, outgoing) => {
    const isStream = incoming.url?.endsWith("/events") ?? false;
    const cut = isStream && ++streams === 1;
    const forwarded = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: incoming.url,
        method: incoming.method,
        headers: incoming.headers,
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        let seen = "";
        answer.on("data", (chunk: Buffer) => {
          outgoing.write(chunk);
          seen += chunk.toString("utf8");
          if (cut && /id: \d+\n[\s\S]*?\n\n/.test(seen)) {
            answer.destroy();
            outgoing.destroy();
          }
        });
        answer.on("end", () => outgoing.end());
      },
    );
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    streams: () => streams,
    close: () =>
      new Promise((resolve) => {
        proxy.closeAllConnections();
        proxy.close(() => resolve());
      }),
  };
}

describe("the Node SDK's live session", () => {
  it("iterates the events to live.ended, reconnecting with Last-Event-ID: nothing missed, nothing twice", async () => {
    const proxy = await droppingProxy();
    try {
      const verbatim = sdkFor(server, { baseUrl: proxy.url });
      const playlist = hls.paced("sdk", jfk, { intervalMs: 500 });
      const session = await verbatim.live.start({ url: playlist.url });
      const events: LiveEvent[] = [];
      for await (const event of session.events({ reconnectDelay: 100 })) events.push(event);
      expect(proxy.streams()).toBeGreaterThanOrEqual(2);
      const seqs = events.flatMap((event) => ("seq" in event ? [event.seq] : []));
      expect(seqs).toEqual(seqs.map((_, index) => index + 1));
      expect(events.at(-1)).toMatchObject({ type: "live.ended", reason: "stream_ended" });
      expect(session.lastEventId).toBe(seqs.at(-1));
      const { data } = await session.get({ limit: 500 });
      expect(data.segments.map((segment) => segment.text)).toEqual(
        events.flatMap((event) => (event.type === "live.segment" ? [event.text] : [])),
      );
    } finally {
      await proxy.close();
    }
  });
});

describe("transcript <link> --live", () => {
  it("prints each final segment as it is heard and exits 0 when the stream ends", async () => {
    const playlist = hls.paced("cli-text", jfk, { intervalMs: 300 });
    const run = await runCli(cli, ["transcript", playlist.url, "--live"], environment());
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/what you can do for your country\n$/);
    expect(run.stderr).toMatch(/^live session live_[0-9A-Z]{26}: /);
    expect(run.stderr).toMatch(/ended \(stream_ended\): [\d.]+ s, 1 credit\n$/);
  });

  it("prints every event as a JSON line with --format json", async () => {
    const playlist = hls.paced("cli-json", jfk, { intervalMs: 300 });
    const run = await runCli(cli, ["transcript", playlist.url, "--live", "--format", "json"], environment());
    expect(run.code, run.stderr).toBe(0);
    const types = run.stdout
      .trim()
      .split("\n")
      .map((line) => (JSON.parse(line) as { type: string }).type);
    expect(types[0]).toBe("live.started");
    expect(types).toContain("live.partial");
    expect(types.at(-1)).toBe("live.ended");
  });

  it("stops the session on Ctrl-C: what was heard is charged and the command exits 0", async () => {
    const playlist = hls.paced("cli-stop", jfk, { intervalMs: 2_000, endList: false });
    const [command, ...args] = cli.command as [string, ...string[]];
    const child = spawn(command, [...args, "transcript", playlist.url, "--live"], {
      env: { ...process.env, ...environment() },
    });
    let stdout = "";
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const exited = new Promise<number | null>((resolve) => child.once("close", resolve));
    await new Promise<void>((resolve) => {
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString("utf8");
        if (stdout.includes("\n")) resolve();
      });
    });
    child.kill("SIGINT");
    expect(await exited, stderr).toBe(0);
    playlist.stop();
    expect(stderr).toMatch(/stopping live session live_[0-9A-Z]{26}\n/);
    expect(stderr).toMatch(/stopped: [\d.]+ s, 1 credit\n$/);
  });

  it("refuses subtitles and options of a finished transcript with --live, before any request", async () => {
    const run = await runCli(
      cli,
      ["transcript", "https://radio.example.org/live.m3u8", "--live", "--format", "srt"],
      environment(),
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/--live prints text or json/);
    const words = await runCli(
      cli,
      ["transcript", "https://radio.example.org/live.m3u8", "--live", "--words"],
      environment(),
    );
    expect(words.stderr).toMatch(/--live does not take --words/);
  });
});

describe("the MCP tools of live sessions", () => {
  let mcp: Client;
  beforeAll(async () => {
    mcp = await connectOverHttp(server.baseUrl, server.key.key);
  });
  afterAll(() => mcp?.close());

  it("start_live_session answers the id; read_live_session reads the words since `after` until the session ends", async () => {
    const tools = (await mcp.listTools()).tools;
    const playlist = hls.paced("mcp", jfk, { intervalMs: 300 });
    const started = await callTool(mcp, tools, "start_live_session", { url: playlist.url });
    const sessionId = (started.structuredContent as { id: string }).id;
    expect(sessionId).toMatch(/^live_[0-9A-Z]{26}$/);
    let after = 0;
    const lines: string[] = [];
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
      const read = await callTool(mcp, tools, "read_live_session", { session_id: sessionId, after });
      const result = read.structuredContent as { status: string; text: string; next_after: number };
      if (result.text) lines.push(result.text);
      after = result.next_after;
      if (result.status === "ended") break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(lines.join("\n")).toMatch(/^\[0\.\d s\] and so my fellow americans/);
    expect(lines.join("\n")).toMatch(/what you can do for your country$/);
    const stopped = await callTool(mcp, tools, "stop_live_session", { session_id: sessionId });
    expect(stopped.structuredContent).toMatchObject({ status: "ended", end_reason: "stream_ended", credits_spent: 1 });
  });
});
