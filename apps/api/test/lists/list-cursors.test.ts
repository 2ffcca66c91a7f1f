import { createHmac } from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ListTarget } from "../../src/adapters/youtube/video-lists.ts";
import { ApiError } from "../../src/errors.ts";
import { cursorLifetimeMs, ListCursors, listStart, sweepBatchSize } from "../../src/services/cursors/list-cursors.ts";
import type { Store } from "../../src/store/database.ts";
import { openTestStore } from "../support/store.ts";

const channel: ListTarget = { kind: "channel", channel: "@jawed", tab: "videos", sort: "newest" };
const position = { continuation: "token-1", skip: 12 };
const start = new Date("2026-03-01T12:00:00Z");
const cursorFormat = /^v1\.[A-Za-z0-9_-]{22}\.[0-9]+\.[A-Za-z0-9_-]{43}$/;

let store: Store;
let clock: Date;
let cursors: ListCursors;

beforeAll(async () => {
  store = await openTestStore();
  clock = start;
  cursors = new ListCursors(store, () => clock);
});
afterAll(() => store?.close());

/** The `invalid_cursor` error a read throws; fails the test when it resolves instead. */
async function refusal(read: Promise<unknown>): Promise<ApiError> {
  const error = await read.then(
    (value) => new Error(`expected 400 invalid_cursor, read ${JSON.stringify(value)}`),
    (reason: unknown) => reason,
  );
  if (!(error instanceof ApiError)) throw error;
  expect({ status: error.status, code: error.code, number: error.number }).toEqual({
    status: 400,
    code: "invalid_cursor",
    number: 1002,
  });
  return error;
}

/** Signs text with the deployment's key, as only the server can, to test what the signature does not cover. */
async function signedByTheServer(signed: string): Promise<string> {
  await cursors.issue(channel, listStart);
  const [row] = await store.query<{ value: string }>(
    sql`select value from service_secrets where name = 'list-cursor-signing-key'`,
  );
  if (!row) throw new Error("no signing key stored");
  const signature = createHmac("sha256", Buffer.from(row.value, "base64url")).update(signed).digest("base64url");
  return `${signed}.${signature}`;
}

/** The cursor's four dot-separated parts. */
function partsOf(cursor: string): { version: string; id: string; expiry: string; signature: string } {
  const [version = "", id = "", expiry = "", signature = ""] = cursor.split(".");
  return { version, id, expiry, signature };
}

/** The string with its last character replaced by another base64url character. */
function withLastCharacterChanged(text: string): string {
  return `${text.slice(0, -1)}${text.endsWith("A") ? "B" : "A"}`;
}

describe("a cursor round trip", () => {
  it("reads back the position it was issued for, for the same list", async () => {
    const cursor = await cursors.issue(channel, position);
    expect(cursor).toMatch(cursorFormat);
    expect(await cursors.read(cursor, channel)).toEqual(position);
  });

  it("stores the position under the cursor's id, to expire 24 hours after it was issued", async () => {
    const cursor = await cursors.issue(channel, position);
    const { id, expiry } = partsOf(cursor);
    const rows = await store.query<{ continuation: string; skip: number; expires_at: string }>(
      sql`select continuation, skip, expires_at::text from list_positions where id = ${id}`,
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ continuation: "token-1", skip: 12 });
    expect(new Date(rows[0]?.expires_at ?? "").getTime()).toBe(start.getTime() + cursorLifetimeMs);
    expect(Number(expiry) * 1000).toBe(start.getTime() + cursorLifetimeMs);
  });

  it("issues a new cursor for every page, even for the same position", async () => {
    expect(await cursors.issue(channel, position)).not.toBe(await cursors.issue(channel, position));
  });

  it("reads an empty cursor as the start of the list", async () => {
    expect(await cursors.read("", channel)).toEqual(listStart);
  });

  it("reads back the first page's position, whose continuation is null", async () => {
    const first = { continuation: null, skip: 7 };
    expect(await cursors.read(await cursors.issue(channel, first), channel)).toEqual(first);
  });

  it("binds the list identity canonically: the same target with its fields in another order matches", async () => {
    const cursor = await cursors.issue(channel, position);
    const reordered: ListTarget = { sort: "newest", tab: "videos", channel: "@jawed", kind: "channel" };
    expect(await cursors.read(cursor, reordered)).toEqual(position);
  });

  it("is honoured by every process of the deployment: one key, created once in service_secrets", async () => {
    const otherProcess = new ListCursors(store, () => clock);
    const cursor = await cursors.issue(channel, position);
    expect(await otherProcess.read(cursor, channel)).toEqual(position);
    expect(
      await new ListCursors(store, () => clock).read(await otherProcess.issue(channel, position), channel),
    ).toEqual(position);
    const keys = await store.query<{ count: number }>(
      sql`select count(*)::int as count from service_secrets where name = 'list-cursor-signing-key'`,
    );
    expect(keys).toEqual([{ count: 1 }]);
  });
});

describe("cursor size", () => {
  it("stays at 80 characters with a 5,000-character continuation, under the 256 of the wire format we follow", async () => {
    const deep = { continuation: "C".repeat(5000), skip: 49 };
    const cursor = await cursors.issue(channel, deep);
    expect(cursor).toMatch(cursorFormat);
    expect(cursor).toHaveLength(80);
    expect(await cursors.read(cursor, channel)).toEqual(deep);
  });
});

describe("400 invalid_cursor (1002)", () => {
  it("refuses a cursor whose id was altered", async () => {
    const { version, id, expiry, signature } = partsOf(await cursors.issue(channel, position));
    const error = await refusal(
      cursors.read(`${version}.${withLastCharacterChanged(id)}.${expiry}.${signature}`, channel),
    );
    expect(error.message).toMatch(/not issued by this server or was altered/);
  });

  it("refuses a cursor whose expiry was extended", async () => {
    const { version, id, expiry, signature } = partsOf(await cursors.issue(channel, position));
    const error = await refusal(cursors.read(`${version}.${id}.${Number(expiry) + 86_400}.${signature}`, channel));
    expect(error.message).toMatch(/not issued by this server or was altered/);
  });

  it("refuses a cursor whose signature was altered", async () => {
    const cursor = await cursors.issue(channel, position);
    const last = cursor.at(-2) === "A" ? "B" : "A";
    const error = await refusal(cursors.read(`${cursor.slice(0, -2)}${last}${cursor.at(-1)}`, channel));
    expect(error.message).toMatch(/not issued by this server or was altered/);
  });

  it("refuses a cursor signed with another deployment's key", async () => {
    const otherStore = await openTestStore();
    try {
      const foreign = await new ListCursors(otherStore, () => clock).issue(channel, position);
      const error = await refusal(cursors.read(foreign, channel));
      expect(error.message).toMatch(/not issued by this server or was altered/);
    } finally {
      await otherStore.close();
    }
  });

  it("honours a cursor until 24 hours after it was issued, then refuses it as expired", async () => {
    const cursor = await cursors.issue(channel, position);
    try {
      clock = new Date(start.getTime() + cursorLifetimeMs - 1000);
      expect(await cursors.read(cursor, channel)).toEqual(position);
      clock = new Date(start.getTime() + cursorLifetimeMs);
      const error = await refusal(cursors.read(cursor, channel));
      expect(error.message).toMatch(/expired/);
    } finally {
      clock = start;
    }
  });

  it("refuses a cursor whose position was swept as expired, even by a process whose clock runs ahead", async () => {
    const cursor = await cursors.issue(channel, position);
    const aheadByADay = new ListCursors(store, () => new Date(start.getTime() + cursorLifetimeMs + 60_000));
    expect(await aheadByADay.sweep()).toBeGreaterThan(0);
    const error = await refusal(cursors.read(cursor, channel));
    expect(error.message).toMatch(/expired/);
  });

  it("refuses a correctly signed cursor that names no stored position as expired", async () => {
    const forged = await signedByTheServer(`v1.${"A".repeat(22)}.${Math.floor(start.getTime() / 1000) + 3600}`);
    const error = await refusal(cursors.read(forged, channel));
    expect(error.message).toMatch(/expired/);
  });

  const otherLists: Array<[string, ListTarget]> = [
    ["another channel", { ...channel, channel: "@other" }],
    ["another tab", { ...channel, tab: "shorts" }],
    ["another order", { ...channel, sort: "oldest" }],
    ["a query inside the channel", { ...channel, query: "zoo" }],
    ["a playlist", { kind: "playlist", playlist: "@jawed" }],
    ["a search", { kind: "search", query: "@jawed", type: "video" }],
  ];
  for (const [what, other] of otherLists) {
    it(`refuses a channel cursor sent with ${what}`, async () => {
      const error = await refusal(cursors.read(await cursors.issue(channel, position), other));
      expect(error.message).toMatch(/belongs to another list/);
    });
  }

  it("refuses a search cursor sent with another result type", async () => {
    const search: ListTarget = { kind: "search", query: "zoo", type: "video" };
    const error = await refusal(cursors.read(await cursors.issue(search, position), { ...search, type: "channel" }));
    expect(error.message).toMatch(/belongs to another list/);
  });

  for (const malformed of ["abc", "v1.expired", "v2.eyJ9.c2ln", "v1..c2ln", "v1.a.b.c", "....", " "]) {
    it(`refuses the malformed cursor ${JSON.stringify(malformed)}`, async () => {
      const error = await refusal(cursors.read(malformed, channel));
      expect(error.message).toMatch(/malformed/);
    });
  }

  it("refuses an issued cursor with a part missing, added or in another version as malformed", async () => {
    const { version, id, expiry, signature } = partsOf(await cursors.issue(channel, position));
    for (const broken of [
      `${version}.${id}.${signature}`,
      `${version}.${id}.${expiry}.${signature}.x`,
      `v2.${id}.${expiry}.${signature}`,
      `${version}.${id}x.${expiry}.${signature}`,
    ]) {
      const error = await refusal(cursors.read(broken, channel));
      expect(error.message, broken).toMatch(/malformed/);
    }
  });

  const badParts: Array<[string, string]> = [
    ["with a short id", `v1.${"A".repeat(21)}.9999999999`],
    ["with an id that is not base64url", `v1.${"A".repeat(21)}+.9999999999`],
    ["with an expiry that is not a number", `v1.${"A".repeat(22)}.soon`],
    ["with a negative expiry", `v1.${"A".repeat(22)}.-1`],
    ["with a fractional expiry", `v1.${"A".repeat(22)}.9999999999.5`],
  ];
  for (const [what, signed] of badParts) {
    it(`refuses a correctly signed cursor ${what}`, async () => {
      const error = await refusal(cursors.read(await signedByTheServer(signed), channel));
      expect(error.message).toMatch(/malformed/);
    });
  }
});

describe("sweep", () => {
  let sweepStore: Store;
  let sweepClock: Date;
  let sweeping: ListCursors;

  beforeAll(async () => {
    sweepStore = await openTestStore();
    sweepClock = start;
    sweeping = new ListCursors(sweepStore, () => sweepClock);
  });
  afterAll(() => sweepStore?.close());

  async function storedPositions(): Promise<number> {
    const [row] = await sweepStore.query<{ count: number }>(sql`select count(*)::int as count from list_positions`);
    return row?.count ?? 0;
  }

  it("deletes expired positions only, more than one batch of them in one call", async () => {
    const expiredCount = sweepBatchSize * 2 + 5;
    await sweepStore.query(sql`
      insert into list_positions (id, list_identity, continuation, skip, expires_at)
      select 'expired-' || n, 'list', 'token', 0, ${start.toISOString()}::timestamptz - interval '1 second'
      from generate_series(1, ${expiredCount}) as n`);
    const live = await sweeping.issue(channel, position);
    expect(await storedPositions()).toBe(expiredCount + 1);
    expect(await sweeping.sweep()).toBe(expiredCount);
    expect(await storedPositions()).toBe(1);
    expect(await sweeping.read(live, channel)).toEqual(position);
    expect(await sweeping.sweep()).toBe(0);
  });

  it("deletes a position once its cursor has expired, and the cursor then reads as expired", async () => {
    const cursor = await sweeping.issue(channel, position);
    const stored = await storedPositions();
    try {
      sweepClock = new Date(start.getTime() + cursorLifetimeMs - 1000);
      expect(await sweeping.sweep()).toBe(0);
      sweepClock = new Date(start.getTime() + cursorLifetimeMs);
      expect(await sweeping.sweep()).toBe(stored);
      expect(await storedPositions()).toBe(0);
      sweepClock = start;
      const error = await refusal(sweeping.read(cursor, channel));
      expect(error.message).toMatch(/expired/);
    } finally {
      sweepClock = start;
    }
  });
});
