import { recordedVideos } from "@verbatim/testkit/fake-youtube";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countQueries } from "../../bench/query-counter.ts";
import { testEngine } from "../support/store.ts";
import { serverStartTimeoutMs, startYoutubeServer, type YoutubeTestServer } from "../support/youtube-server.ts";

// Counts every statement either driver sends from here on; the server below opens its store after.
const statements = countQueries();
const { captioned } = recordedVideos;

let yt: YoutubeTestServer;

beforeAll(async () => {
  yt = await startYoutubeServer({ plan: "pro", credits: 10 });
  yt.fake.serveRecordedVideos();
}, serverStartTimeoutMs);

afterAll(async () => {
  await yt?.close();
});

/** Asks for the captioned video's English track with this client; answers the status and the statements it took. */
async function fetchCounted(client = yt.server.client, idempotencyKey?: string) {
  statements.reset();
  const { data, error, response } = await client.POST("/transcripts/video", {
    body: { video: captioned, language: "en" },
    ...(idempotencyKey === undefined ? {} : { headers: { "Idempotency-Key": idempotencyKey } }),
  });
  return { data, error, status: response.status, statements: statements.count };
}

async function slotsInUse(accountId: string): Promise<number> {
  return yt.server.platform.slots.inUse(accountId);
}

async function passagesOf(accountId: string): Promise<number> {
  const [row] = await yt.server.platform.store.query<{ passages: number }>(
    sql`select count(p.*)::int as passages from library_entries e join library_passages p on p.entry_id = e.id
         where e.account_id = ${accountId}`,
  );
  return row?.passages ?? 0;
}

describe(`a transcript served from the store (${testEngine})`, () => {
  it("takes two statements: admission with the slot, then the read, the charge, the library and the release", async () => {
    const first = await fetchCounted();
    expect(first.status, JSON.stringify(first.error)).toBe(200);
    // Fetched upstream, it gives its slot back when its response closes, which the client may see first.
    await expect.poll(() => slotsInUse(yt.server.account.id), { timeout: 5_000 }).toBe(0);
    const upstreamCalls = yt.fake.requests.length;

    const hit = await fetchCounted();
    expect(hit.status, JSON.stringify(hit.error)).toBe(200);
    expect(yt.fake.requests.length, "served from the store").toBe(upstreamCalls);
    expect(hit.statements).toBe(2);
    expect(hit.data?.usage).toMatchObject({ credits_spent: 1, balance: 8 });
    // The stored segments are spliced into the body as the store keeps them: the same transcript, the same bytes counted.
    expect(hit.data?.data).toEqual(first.data?.data);
    expect(hit.data?.usage.bytes).toBe(first.data?.usage.bytes);
    expect(await yt.balance()).toBe(8);
    expect(await slotsInUse(yt.server.account.id)).toBe(0);
    const [entry] = await yt.server.platform.store.query<{ entries: number }>(
      sql`select count(*)::int as entries from library_entries where account_id = ${yt.server.account.id}`,
    );
    expect(entry?.entries).toBe(1);
  });

  it("with an Idempotency-Key takes seven: admission, the key, the slot, then the read and charge in a transaction that stores the answer", async () => {
    const before = (await yt.balance()) ?? 0;
    const hit = await fetchCounted(yt.server.client, "store-hit-keyed-1");
    expect(hit.status, JSON.stringify(hit.error)).toBe(200);
    // BEGIN, the read with the charge, the library and the release, the stored answer, COMMIT.
    expect(hit.statements).toBe(7);
    expect(hit.data?.usage).toMatchObject({ credits_spent: 1, balance: before - 1 });
    expect(await slotsInUse(yt.server.account.id)).toBe(0);

    const replay = await fetchCounted(yt.server.client, "store-hit-keyed-1");
    expect(replay.data).toEqual(hit.data);
    expect(await yt.balance()).toBe(before - 1);
  });

  it("indexes the words for an account the store serves them to the first time, and finds them", async () => {
    const { account, key } = await yt.server.platform.accounts.create({ plan: "pro", credits: 5 });
    const other = yt.server.clientFor(key.key);
    const hit = await fetchCounted(other);
    expect(hit.status, JSON.stringify(hit.error)).toBe(200);
    expect(await passagesOf(account.id)).toBeGreaterThan(0);
    const { data } = await other.POST("/library/search", { body: { query: "cheapest surface" } });
    expect(data?.data.hits.map((found) => found.video_id)).toEqual([captioned]);
    expect(await slotsInUse(account.id)).toBe(0);
  });

  it("gives the slot taken with admission back on a 402, with nothing charged or recorded", async () => {
    const { account, key } = await yt.server.platform.accounts.create({ plan: "pro", credits: 0 });
    const refused = await fetchCounted(yt.server.clientFor(key.key));
    expect(refused.status, JSON.stringify(refused.error)).toBe(402);
    expect(refused.error?.error.code).toBe("insufficient_credits");
    // A refused request gives its slot back when its response closes, which the client may see first.
    await expect.poll(() => slotsInUse(account.id), { timeout: 5_000 }).toBe(0);
    expect(await passagesOf(account.id)).toBe(0);
  });

  it("serves the segments' JSON text the store keeps beside them, as their jsonb prints, after every write", async () => {
    const store = yt.server.platform.store;
    const unlike = () =>
      store.query<{ unlike: number }>(
        sql`select count(*)::int as unlike from stored_transcripts where segments_text is distinct from segments::text`,
      );
    expect(await unlike()).toEqual([{ unlike: 0 }]);
    await store.query(
      sql`update stored_transcripts set segments = ${JSON.stringify([{ start: 0, duration: 1, text: "rewritten" }])}::jsonb
           where video_id = ${captioned}`,
    );
    expect(await unlike()).toEqual([{ unlike: 0 }]);
    const hit = await fetchCounted();
    expect(hit.status, JSON.stringify(hit.error)).toBe(200);
    expect(hit.data?.data).toMatchObject({ segments: [{ start: 0, duration: 1, text: "rewritten" }] });
  });
});
