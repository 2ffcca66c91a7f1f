import { execFileSync } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { audioFixture, type FakePodcastHost, startFakePodcastHost } from "@verbatim/testkit/fake-podcast-host";
import { type NodeProcess, spawnNode } from "@verbatim/testkit/node-process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listeningUrl } from "../audio/service-process.ts";
import { createPostgresDatabase, type PostgresDatabase } from "../support/store.ts";

const apiPackage = fileURLToPath(new URL("../..", import.meta.url));
const serverUrl = process.env.DATABASE_URL;
const jfkPhrase = "what you can do for your country";

/**
 * The compiled build as the deployment runs it: `pnpm build` once, then `node dist/main.js` with
 * `NODE_ENV=production`, no TypeScript loader, from the package's own scripts. On PostgreSQL the
 * service serves the API only and a worker process shares its database; on PGlite (one process
 * per data directory) the service runs every role and the worker has a directory of its own.
 */
describe("the compiled service (pnpm build, then node dist/main.js)", () => {
  const scratch: string[] = [];
  const processes: NodeProcess[] = [];
  let database: PostgresDatabase | undefined;
  let host: FakePodcastHost;
  let service: NodeProcess;
  let worker: NodeProcess;
  let baseUrl: string;

  /** Where one process keeps its data: a database every process shares, or a data directory of its own. */
  async function storeEnvironment(): Promise<Record<string, string>> {
    if (database) return { DATABASE_URL: database.url };
    const dir = await mkdtemp(join(tmpdir(), "verbatim-compiled-"));
    scratch.push(dir);
    return { DATABASE_URL: "", VERBATIM_DATA_DIR: dir };
  }

  async function startCompiled(role: "all" | "api" | "worker"): Promise<NodeProcess> {
    const started = spawnNode("dist/main.js", ["dist/main.js"], {
      cwd: apiPackage,
      env: {
        ...(await storeEnvironment()),
        NODE_ENV: "production",
        VERBATIM_ROLE: role,
        VERBATIM_ALLOW_PRIVATE_TARGETS: "1",
        VERBATIM_LOG_LEVEL: "info",
        PORT: "0",
        // The source run would die after a charge here; the compiled build must not read it at all.
        VERBATIM_TEST_FAULTS: "exit-after-charge",
      },
    });
    processes.push(started);
    return started;
  }

  beforeAll(async () => {
    const startedAt = performance.now();
    execFileSync("pnpm", ["run", "--silent", "build"], { cwd: apiPackage, stdio: "pipe" });
    process.stdout.write(`compiled apps/api/dist in ${((performance.now() - startedAt) / 1000).toFixed(1)} s\n`);
    if (serverUrl) database = await createPostgresDatabase(serverUrl);
    host = await startFakePodcastHost();
    host.serveFixture("/feed.xml", "verbatim/transcript-formats.xml", "application/rss+xml; charset=utf-8", {
      replace: { "https://podcasts.example/": host.url("/") },
    });
    host.serveFile("/media/ep-plain.mp3", audioFixture("whisper-cpp/jfk.mp3"), "audio/mpeg");
    // Both start at once: each opens and migrates its store, which takes seconds on PGlite.
    [service, worker] = await Promise.all([startCompiled(database ? "api" : "all"), startCompiled("worker")]);
    baseUrl = await listeningUrl(service, 150_000);
    // Two cold PGlite starts side by side: on a loaded 2-core machine they take minutes, not seconds.
  }, 180_000);

  afterAll(async () => {
    await Promise.all(processes.map((started) => started.kill()));
    await host?.close();
    await database?.drop();
    await Promise.all(scratch.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  /** The development key the first start printed. */
  async function developmentKey(): Promise<string> {
    const line = await service.waitForLine(/^\s+vb_live_\S+$/, 5_000);
    return line.trim();
  }

  async function call(path: string, init: RequestInit & { key?: string } = {}) {
    const headers = new Headers(init.headers);
    if (init.key) headers.set("authorization", `Bearer ${init.key}`);
    return fetch(`${baseUrl}${path}`, { ...init, headers });
  }

  it("answers /api/v2/health, and /api/v2/me with the development key it printed", async () => {
    const health = await call("/api/v2/health");
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ ok: true, data: { status: "ok" } });

    const key = await developmentKey();
    const me = await call("/api/v2/me", { key });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ ok: true, data: { kind: "me", plan: "pro" } });

    const unknown = await call("/api/v2/me", { key: `${key}x` });
    expect(unknown.status).toBe(401);
  });

  it("serves the dashboard's build and the API reference from the packages it bundled", async () => {
    const dashboard = await call("/dashboard/");
    expect(dashboard.status).toBe(200);
    expect(await dashboard.text()).toContain('<div id="app"');
    const document = await call("/openapi.json");
    expect(document.status).toBe(200);
    expect(await document.json()).toMatchObject({ info: { title: expect.any(String) }, paths: expect.any(Object) });
  });

  it("reads a feed in its parsing thread and transcribes the episode with ffmpeg and the shipped model", async () => {
    const answer = await call("/api/v2/transcripts/video", {
      method: "POST",
      key: await developmentKey(),
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ video: host.url("/feed.xml"), episode: "verbatim-ep-plain", timestamps: false }),
    });
    const body = (await answer.json()) as { data?: { source?: string; text?: string } };
    expect(answer.status, JSON.stringify(body).slice(0, 1000)).toBe(200);
    expect(body.data?.source).toBe("audio");
    expect(body.data?.text?.toLowerCase()).toContain(jfkPhrase);
  });

  it("holds no fault point: VERBATIM_TEST_FAULTS is not in dist/, and a charged request with an Idempotency-Key is answered and recorded", async () => {
    const dist = join(apiPackage, "dist");
    for (const file of await readdir(dist)) {
      const text = await readFile(join(dist, file), "utf8");
      expect(text, file).not.toContain("VERBATIM_TEST_FAULTS");
      expect(text, file).not.toContain("exit-after-charge");
    }
    const key = await developmentKey();
    const send = () =>
      call("/api/v2/transcripts/video", {
        method: "POST",
        key,
        headers: { "content-type": "application/json", "idempotency-key": "compiled-fault-point" },
        body: JSON.stringify({ video: host.url("/feed.xml"), episode: "verbatim-ep-plain", timestamps: false }),
      });
    const first = await send();
    const firstBody = await first.text();
    expect(first.status, firstBody.slice(0, 1000)).toBe(200);
    expect((await call("/api/v2/health")).status).toBe(200);
    const retried = await send();
    expect(retried.headers.get("idempotent-replayed")).toBe("true");
    expect(await retried.text()).toBe(firstBody);
  });

  it("renders a large transcript and its library read in a rendering thread", async () => {
    const cues = Array.from({ length: 3000 }, (_, index) => index);
    const clock = (ms: number) => new Date(ms).toISOString().slice(11, 23).replace(".", ",");
    host.serve("/large.srt", {
      contentType: "application/x-subrip",
      body: cues
        .map((index) => `${index + 1}\n${clock(index * 2000)} --> ${clock(index * 2000 + 1500)}\nline ${index}\n`)
        .join("\n"),
    });
    host.serve("/large-feed.xml", {
      contentType: "application/rss+xml; charset=utf-8",
      body: `<?xml version="1.0" encoding="UTF-8"?><rss xmlns:podcast="https://podcastindex.org/namespace/1.0" version="2.0"><channel><title>Large</title><item><title>Long</title><guid isPermaLink="false">verbatim-ep-large</guid><podcast:transcript url="${host.url("/large.srt")}" type="application/x-subrip" /><enclosure url="${host.url("/media/ep-plain.mp3")}" length="76447" type="audio/mpeg" /></item></channel></rss>`,
    });
    const key = await developmentKey();
    const fetched = await call("/api/v2/transcripts/video", {
      method: "POST",
      key,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ video: host.url("/large-feed.xml"), format: "srt" }),
    });
    const body = (await fetched.json()) as { data?: { subtitles?: string; video_id?: string; platform?: string } };
    expect(fetched.status, JSON.stringify(body).slice(0, 1000)).toBe(200);
    expect(body.data?.subtitles?.startsWith("1\n00:00:00,000 --> 00:00:01,500\nline 0\n\n")).toBe(true);
    const read = await call(`/api/v2/library/${body.data?.platform}:${body.data?.video_id}?format=text`, { key });
    const library = (await read.json()) as { data?: { text?: string } };
    expect(read.status, JSON.stringify(library).slice(0, 1000)).toBe(200);
    expect(library.data?.text).toBe(cues.map((index) => `line ${index}`).join(" "));
  });

  it("starts the worker role", async () => {
    const line = await worker.waitForLine(/Verbatim worker running/, 150_000);
    expect(JSON.parse(line)).toMatchObject({ role: "worker", engine: database ? "postgres" : "embedded" });
  }, 180_000);
});
