import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { openPlatformFixture, type PlatformFixture } from "../platform/helpers.ts";

let fixture: PlatformFixture;
let accountId: string;

// 1,200 entries fetched a second apart, v1 the oldest; every hundredth says "heliotrope garden". A
// search walks the newest 1,000 (v201-v1200) and reads the words' index for the older ones.
beforeAll(async () => {
  fixture = await openPlatformFixture();
  ({
    account: { id: accountId },
  } = await fixture.account("scale"));
  await fixture.store.query(sql`
    with entries as (
      insert into library_entries (account_id, video_key, video_id, platform, title, language, source,
                                   search_config, content_hash, fetched_at)
      select ${accountId}, 'youtube:v' || n, 'v' || n, 'youtube', 'Video ' || n, 'en', 'captions', 'english',
             'hash ' || n, timestamptz '2026-01-01T00:00:00Z' + n * interval '1 second'
        from generate_series(1, 1200) n
      returning id, video_id
    )
    insert into library_passages (entry_id, position, text, segment_starts, segment_offsets, words)
    select id, 0, t.text, array[0]::float8[], array[0], to_tsvector('english', t.text)
      from entries,
           lateral (select case when substr(video_id, 2)::int % 100 = 0 then 'a heliotrope garden'
                                else 'a plain garden' end as text) t`);
});
afterAll(() => fixture.close());

const everyHundredth = Array.from({ length: 12 }, (_, index) => `v${1200 - index * 100}`);

it("finds matches older than the newest thousand entries, after the newer ones", async () => {
  for (const query of ["heliotrope", '"heliotrope garden"']) {
    const page = await fixture.platform.library.search(accountId, { query, limit: 20 });
    expect(page.rows.map((hit) => hit.video_id)).toEqual(everyHundredth);
    expect(page.nextCursor).toBeNull();
  }
});

it("pages through them in the same order, each match once", async () => {
  const seen: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await fixture.platform.library.search(accountId, {
      query: "heliotrope",
      limit: 5,
      ...(cursor ? { cursor } : {}),
    });
    seen.push(...page.rows.map((hit) => hit.video_id));
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  expect(seen).toEqual(everyHundredth);
});

it("still finds a word of most entries in the newest ones", async () => {
  const page = await fixture.platform.library.search(accountId, { query: "garden", limit: 3 });
  expect(page.rows.map((hit) => hit.video_id)).toEqual(["v1200", "v1199", "v1198"]);
});
