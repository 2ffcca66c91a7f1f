import { type FakeYoutube, fromFixture } from "@verbatim/testkit/fake-youtube";
import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { PlanName } from "../../src/services/accounts/plans.ts";
import { plans } from "../../src/services/accounts/plans.ts";
import type { Store } from "../../src/store/database.ts";
import { expectErrorEnvelope, expectIssueAt, send } from "../support/http.ts";
import type { TestServer } from "../support/server.ts";
import { openTestStore } from "../support/store.ts";
import { serverStartTimeoutMs, startYoutubeServer, type YoutubeTestServer } from "../support/youtube-server.ts";

const surfaceGo = "GJLlxj_dtq8";
const russianCivilWar = "F1xioXWb8CY";
const takenDown = "authoredNW1";
const failing = "authoredFA1";

let yt: YoutubeTestServer | undefined;
/** Every test's server works on this store, emptied: each needs an empty database, not a new one. */
let store: Store;

beforeAll(async () => {
  store = await openTestStore();
}, serverStartTimeoutMs);
afterAll(async () => store?.close());
afterEach(async () => {
  await yt?.close();
  yt = undefined;
});

/** Captions for two videos, one taken down, one whose player keeps failing. */
function serveVideos(fake: FakeYoutube, delayMs = 0): void {
  const reply = (path: string) => ({ ...fromFixture(path), delayMs });
  fake
    .player(surfaceGo, reply("youtube-transcript-api/youtube.innertube.json.static"))
    .timedtext({ v: surfaceGo, lang: "en" }, fromFixture("authored/GJLlxj_dtq8.en.srv3.xml"))
    .timedtext({ v: surfaceGo, lang: "en", kind: "asr" }, fromFixture("authored/GJLlxj_dtq8.en-asr.srv3.xml"))
    .player(russianCivilWar, reply("youtube-transcript-api/youtube_ww1_nl_en.innertube.json.static"))
    .timedtext({ v: russianCivilWar, lang: "en" }, fromFixture("authored/F1xioXWb8CY.en.json3"))
    .player(takenDown, fromFixture("youtube-transcript-api/youtube_video_unavailable.innertube.json.static"))
    .player(failing, { status: 500, body: "upstream broke" });
}

async function start(options: Parameters<typeof startYoutubeServer>[0] = {}): Promise<YoutubeTestServer> {
  yt = await startYoutubeServer({ credits: 1000, store, ...options });
  serveVideos(yt.fake);
  return yt;
}

function batch(server: TestServer, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return server.client.POST("/transcripts/batch", { body: body as never, headers });
}

async function charges(server: TestServer) {
  return server.platform.store.query<{ delta: number; operation: string }>(
    sql`select delta::int as delta, operation from credit_ledger
         where account_id = ${server.account.id} and kind = 'charge' order by id`,
  );
}

describe("POST /transcripts/batch", () => {
  it(
    "answers one row per item in order: ok rows with text and segments at 1 credit, store hits too, error rows free",
    async () => {
      const { server } = await start();
      const items = [surfaceGo, `https://youtu.be/${russianCivilWar}`, takenDown, surfaceGo];
      const { data, response } = await batch(server, { video_ids: items });
      expect(response.status).toBe(200);
      const rows = data?.data.results ?? [];
      expect(rows.map((row) => [row.input, row.outcome])).toEqual([
        [surfaceGo, "ok"],
        [`https://youtu.be/${russianCivilWar}`, "ok"],
        [takenDown, "error"],
        [surfaceGo, "ok"],
      ]);
      const [first, second, third] = rows;
      expect(first).toMatchObject({ outcome: "ok", video_id: surfaceGo, source: "captions" });
      if (first?.outcome !== "ok" || second?.outcome !== "ok") throw new Error("rows not ok");
      expect(first.segments.length).toBeGreaterThan(0);
      expect(first.text).toBe(first.segments.map((segment) => segment.text).join(" "));
      expect(second.video_id).toBe(russianCivilWar);
      expect(third).toMatchObject({ video_id: takenDown, error: { code: "unavailable" } });
      expect(third).not.toHaveProperty("retry_after");
      expect(data?.usage).toMatchObject({ credits_spent: 3, balance: 997 });
      expect(await charges(server)).toEqual(Array(3).fill({ delta: -1, operation: "POST /transcripts/batch" }));
    },
    serverStartTimeoutMs,
  );

  it(
    "a transient failure is a free error row that says when to retry",
    async () => {
      const { server } = await start();
      const { data } = await batch(server, { video_ids: [failing] });
      const [row] = data?.data.results ?? [];
      expect(row).toMatchObject({ outcome: "error", error: { code: "upstream_error", number: 5001 }, retry_after: 30 });
      expect(await charges(server)).toEqual([]);
    },
    serverStartTimeoutMs,
  );

  it(
    "takes the legacy videoIds, and refuses both keys, neither, and mode audio with 400",
    async () => {
      const { server } = await start();
      const legacy = await batch(server, { videoIds: [surfaceGo] });
      expect(legacy.data?.data.results[0]?.outcome).toBe("ok");
      const both = await send(server, {
        method: "POST",
        path: "/api/v2/transcripts/batch",
        json: { video_ids: [surfaceGo], videoIds: [surfaceGo] },
      });
      expectErrorEnvelope(both, 400, "invalid_request");
      expectIssueAt(both, "/body/videoIds");
      const neither = await send(server, { method: "POST", path: "/api/v2/transcripts/batch", json: { mode: "auto" } });
      expectErrorEnvelope(neither, 400, "invalid_request");
      expectIssueAt(neither, "/body/video_ids");
      const audio = await send(server, {
        method: "POST",
        path: "/api/v2/transcripts/batch",
        json: { video_ids: [surfaceGo], mode: "audio" },
      });
      expectErrorEnvelope(audio, 400, "invalid_request");
      expect(await charges(server)).toHaveLength(1);
    },
    serverStartTimeoutMs,
  );

  it(
    "holds each plan to its cap: one item more is 400 batch_too_large with details, before any work",
    async () => {
      const { server, fake } = await start();
      const cases: Array<[PlanName, number]> = [
        ["free", 50],
        ["basic", 50],
        ["pro", 50],
        ["mega", 500],
        ["scale", 500],
      ];
      for (const [plan, cap] of cases) {
        expect(plans[plan].maxBatchItems).toBe(cap);
        const { key } = await server.platform.accounts.create({ plan, credits: 1000 });
        const requestsBefore = fake.requests.length;
        const over = await send(server, {
          method: "POST",
          path: "/api/v2/transcripts/batch",
          json: { video_ids: Array(cap + 1).fill(surfaceGo) },
          headers: { authorization: `Bearer ${key.key}` },
        });
        expectErrorEnvelope(over, 400, "batch_too_large");
        expect((over.body as { error: { details: unknown } }).error.details).toEqual({ max: cap, sent: cap + 1 });
        expect(fake.requests.length).toBe(requestsBefore);
      }
      expect(await charges(server)).toEqual([]);
      const { key } = await server.platform.accounts.create({ plan: "mega", credits: 1000 });
      const accepted = await server.clientFor(key.key).POST("/transcripts/batch", {
        body: { video_ids: Array(51).fill(surfaceGo) },
      });
      expect(accepted.data?.data.results).toHaveLength(51);
      expect(accepted.data?.usage.credits_spent).toBe(51);
    },
    serverStartTimeoutMs * 2,
  );

  it(
    "when the balance runs out part-way, the rows left are insufficient_credits, and the delivered ones stay charged",
    async () => {
      const { server } = await start({ credits: 2 });
      const { data } = await batch(server, { video_ids: [surfaceGo, russianCivilWar, surfaceGo, russianCivilWar] });
      const outcomes = (data?.data.results ?? []).map((row) =>
        row.outcome === "error" ? row.error.code : row.outcome,
      );
      expect(outcomes.filter((outcome) => outcome === "ok")).toHaveLength(2);
      expect(outcomes.filter((outcome) => outcome === "insufficient_credits")).toHaveLength(2);
      expect(data?.usage).toMatchObject({ credits_spent: 2, balance: 0 });
      expect(await charges(server)).toHaveLength(2);
      expect(await yt?.balance()).toBe(0);
    },
    serverStartTimeoutMs,
  );

  it(
    "replays the whole answer for the same Idempotency-Key, charging once",
    async () => {
      const { server } = await start();
      const headers = { "Idempotency-Key": "batch-replay-1" };
      const first = await batch(server, { video_ids: [surfaceGo, takenDown] }, headers);
      const again = await batch(server, { video_ids: [surfaceGo, takenDown] }, headers);
      expect(again.response.headers.get("idempotent-replayed")).toBe("true");
      expect({ ...again.data, request_id: undefined }).toEqual({ ...first.data, request_id: undefined });
      expect(await charges(server)).toHaveLength(1);
    },
    serverStartTimeoutMs,
  );
});

describe("a batch naming a video more than once", () => {
  it(
    "fetches it once: 20 rows as ids and URLs make one player request, each row the same transcript at 1 credit",
    async () => {
      const { server, fake } = await start({ plan: "pro" });
      // Slow enough that, fetched row by row, every worker would be waiting on upstream at once.
      fake.latencyMs = 100;
      const forms = [
        surfaceGo,
        `https://www.youtube.com/watch?v=${surfaceGo}`,
        `youtu.be/${surfaceGo}`,
        `https://m.youtube.com/shorts/${surfaceGo}`,
      ];
      const items = Array.from({ length: 20 }, (_, index) => forms[index % forms.length] as string);
      const { data } = await batch(server, { video_ids: items });
      expect(fake.requestsTo("/youtubei/v1/player")).toHaveLength(1);
      const rows = data?.data.results ?? [];
      const [first] = rows;
      if (first?.outcome !== "ok") throw new Error(`row 1 is ${JSON.stringify(first)}`);
      expect(rows).toEqual(items.map((input) => ({ ...first, input })));
      expect(data?.usage).toMatchObject({ credits_spent: 20, balance: 980 });
      expect(await charges(server)).toEqual(Array(20).fill({ delta: -1, operation: "POST /transcripts/batch" }));
      expect(await yt?.balance()).toBe(980);
      const usage = await server.client.GET("/usage");
      expect(usage.data?.data.endpoints).toEqual([
        { endpoint: "POST /transcripts/batch", credits_spent: 20, requests: 20 },
      ]);
    },
    serverStartTimeoutMs,
  );

  it(
    "fails it once: 500 rows of a failing video make one upstream attempt, each the same free retryable error",
    async () => {
      const { server, fake } = await start({ plan: "mega", upstream: { maxAttempts: 1 } });
      const { data } = await batch(server, { video_ids: Array(500).fill(failing) });
      expect(fake.requestsTo("/youtubei/v1/player")).toHaveLength(1);
      const rows = data?.data.results ?? [];
      const [first] = rows;
      expect(first).toMatchObject({
        outcome: "error",
        error: { code: "upstream_error", number: 5001 },
        retry_after: 30,
      });
      expect(rows).toEqual(Array(500).fill(first));
      expect(data?.usage).toMatchObject({ credits_spent: 0, balance: 1000 });
      expect(await charges(server)).toEqual([]);
    },
    serverStartTimeoutMs,
  );

  it(
    "charges each of its ok rows as a single request: with 3 credits, 5 rows make one player request, 3 ok and 2 insufficient_credits",
    async () => {
      const { server, fake } = await start({ plan: "pro", credits: 3 });
      fake.latencyMs = 100;
      const { data } = await batch(server, { video_ids: Array(5).fill(surfaceGo) });
      expect(fake.requestsTo("/youtubei/v1/player")).toHaveLength(1);
      const outcomes = (data?.data.results ?? []).map((row) =>
        row.outcome === "error" ? row.error.code : row.outcome,
      );
      expect(outcomes[0]).toBe("ok");
      expect(outcomes.filter((outcome) => outcome === "ok")).toHaveLength(3);
      expect(outcomes.filter((outcome) => outcome === "insufficient_credits")).toHaveLength(2);
      expect(data?.usage).toMatchObject({ credits_spent: 3, balance: 0 });
      expect(await charges(server)).toEqual(Array(3).fill({ delta: -1, operation: "POST /transcripts/batch" }));
      expect(await yt?.balance()).toBe(0);
    },
    serverStartTimeoutMs,
  );
});

describe("batch admission: extraction slots", () => {
  it(
    "a Pro batch holds 3 slots; a single request meanwhile gets 429, and with every slot busy the batch gets 429",
    async () => {
      const { server, fake } = await start({ plan: "pro" });
      // The batch's one fetch answers only when the test lets it, after the requests it must refuse.
      let releaseUpstream = () => {};
      const upstreamReleased = new Promise<void>((resolve) => {
        releaseUpstream = resolve;
      });
      fake.player(surfaceGo, {
        ...fromFixture("youtube-transcript-api/youtube.innertube.json.static"),
        heldUntil: upstreamReleased,
      });
      const running = batch(server, { video_ids: Array(6).fill(surfaceGo) });
      const holding = await waitFor(async () => (await server.platform.slots.inUse(server.account.id)) === 3);
      expect(holding).toBe(true);
      const single = await send(server, {
        method: "POST",
        path: "/api/v2/transcripts/video",
        json: { video: russianCivilWar },
      });
      expectErrorEnvelope(single, 429, "rate_limited");
      expect(single.headers.get("retry-after")).toBe("2");
      const blocked = await send(server, {
        method: "POST",
        path: "/api/v2/transcripts/batch",
        json: { video_ids: [russianCivilWar] },
      });
      expectErrorEnvelope(blocked, 429, "rate_limited");
      releaseUpstream();
      expect((await running).data?.data.results).toHaveLength(6);
      expect(await server.platform.slots.inUse(server.account.id)).toBe(0);
    },
    serverStartTimeoutMs,
  );

  it(
    "takes only the slots a single request left free",
    async () => {
      const { server, fake } = await start({ plan: "pro" });
      fake.latencyMs = 150;
      const single = server.client.POST("/transcripts/video", { body: { video: russianCivilWar } });
      await waitFor(async () => (await server.platform.slots.inUse(server.account.id)) === 1);
      let most = 0;
      const running = batch(server, { video_ids: Array(4).fill(surfaceGo) });
      const watching = (async () => {
        for (let index = 0; index < 40; index++) {
          most = Math.max(most, await server.platform.slots.inUse(server.account.id));
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      })();
      expect((await running).data?.data.results).toHaveLength(4);
      await Promise.all([single, watching]);
      expect(most).toBe(3);
    },
    serverStartTimeoutMs,
  );
});

describe("batch deadline and disconnect", () => {
  it(
    "answers by its deadline; a row still waiting upstream is a retryable timeout row, never charged afterwards",
    async () => {
      const { server, fake } = await start({
        deps: { config: { version: "0.0.0-test", batchDeadlineMs: 5_000 } },
        upstream: { attemptTimeoutMs: 10_000, budgetMs: 20_000 },
      });
      // The slow row's upstream answers only when the test lets it, after the batch has answered.
      let releaseUpstream = () => {};
      const upstreamReleased = new Promise<void>((resolve) => {
        releaseUpstream = resolve;
      });
      fake.player(russianCivilWar, {
        ...fromFixture("youtube-transcript-api/youtube_ww1_nl_en.innertube.json.static"),
        heldUntil: upstreamReleased,
      });
      const { credits } = server.platform;
      const charge = credits.charge;
      const refusedCharges: unknown[] = [];
      credits.charge = async (...args) => {
        try {
          return await charge.apply(credits, args);
        } catch (error) {
          refusedCharges.push(error);
          throw error;
        }
      };
      const { data } = await batch(server, { video_ids: [surfaceGo, russianCivilWar] });
      const [ok, late] = data?.data.results ?? [];
      expect(ok?.outcome).toBe("ok");
      expect(late).toMatchObject({ outcome: "error", error: { code: "timeout", number: 5002 }, retry_after: 30 });
      expect(data?.usage.credits_spent).toBe(1);
      // The slow row finishes upstream after the answer: its transcript is kept, its charge refused.
      expect(refusedCharges).toEqual([]);
      releaseUpstream();
      await waitFor(() => refusedCharges.length > 0, 20_000);
      expect(refusedCharges).toEqual([expect.objectContaining({ message: "the batch reached its deadline" })]);
      expect(await charges(server)).toHaveLength(1);
      const kept = await server.platform.store.query(
        sql`select 1 from stored_transcripts where video_id = ${russianCivilWar}`,
      );
      expect(kept).toHaveLength(1);
    },
    serverStartTimeoutMs,
  );

  it(
    "a client that disconnects stops the rows not started, and nothing more is charged",
    async () => {
      // Attempts outlast the fake's latency however busy the machine is: a retried attempt would be a player call of a started row.
      const { server, fake } = await start({ plan: "pro", upstream: { attemptTimeoutMs: 5_000, budgetMs: 10_000 } });
      fake.latencyMs = 300;
      const items = [surfaceGo, russianCivilWar, takenDown, failing, surfaceGo, russianCivilWar];
      const leaving = new AbortController();
      const request = fetch(`${server.baseUrl}/api/v2/transcripts/batch`, {
        method: "POST",
        headers: { authorization: `Bearer ${server.key.key}`, "content-type": "application/json" },
        body: JSON.stringify({ video_ids: items }),
        signal: leaving.signal,
      });
      await waitFor(() => fake.requestsTo("/youtubei/v1/player").length >= 3);
      leaving.abort();
      await expect(request).rejects.toThrow();
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      expect(fake.requestsTo("/youtubei/v1/player")).toHaveLength(3);
      expect(await charges(server)).toEqual([]);
      expect(await server.platform.slots.inUse(server.account.id)).toBe(0);
    },
    serverStartTimeoutMs,
  );
});

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error("condition not met in time");
}
