import { recordedVideos } from "@verbatim/testkit/fake-youtube";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FullTranscript } from "../../src/services/kept/transcript-store.ts";
import { mediaTranscript } from "../support/media-transcripts.ts";
import { testEngine } from "../support/store.ts";
import { serverStartTimeoutMs, startYoutubeServer, type YoutubeTestServer } from "../support/youtube-server.ts";

const { captioned, json3Captioned } = recordedVideos;

/** The server's clock: it moves only when a test moves it. */
let clock = new Date();
function advance(seconds: number): Date {
  clock = new Date(clock.getTime() + seconds * 1000);
  return clock;
}

let yt: YoutubeTestServer;

beforeAll(async () => {
  yt = await startYoutubeServer({ plan: "pro", credits: 20, now: () => clock });
  yt.fake.serveRecordedVideos();
}, serverStartTimeoutMs);

afterAll(async () => {
  await yt?.close();
});

/** The entry's row version (`xmin` changes with every write of the row), `fetched_at` and hash. */
interface EntryRow {
  version: string;
  fetched_at: string;
  content_hash: string;
}

async function entryOf(accountId: string, videoKey: string): Promise<EntryRow> {
  const [row] = await yt.server.platform.store.query<EntryRow>(
    sql`select xmin::text as version, to_json(fetched_at) #>> '{}' as fetched_at, content_hash
          from library_entries where account_id = ${accountId} and video_key = ${videoKey}`,
  );
  if (!row) throw new Error(`no library entry ${videoKey} for ${accountId}`);
  return row;
}

async function fetchCaptions(video: string): Promise<void> {
  const { error, response } = await yt.server.client.POST("/transcripts/video", { body: { video, language: "en" } });
  expect(response.status, JSON.stringify(error)).toBe(200);
}

async function newestFirst(accountId: string): Promise<string[]> {
  const page = await yt.server.platform.library.list(accountId, 100, undefined);
  return page.rows.map((entry) => entry.video_id);
}

function sameInstant(stored: string, expected: Date): void {
  expect(new Date(stored).toISOString()).toBe(expected.toISOString());
}

describe(`a library entry is written again only when something would change (${testEngine})`, () => {
  it("a store hit on the newest entry within a minute of its fetched_at writes nothing; after the minute it moves", async () => {
    const accountId = yt.server.account.id;
    const videoKey = `youtube:${captioned}`;
    const fetchedAt = advance(1);
    await fetchCaptions(captioned);
    const first = await entryOf(accountId, videoKey);
    sameInstant(first.fetched_at, fetchedAt);

    advance(59);
    await fetchCaptions(captioned);
    expect(await entryOf(accountId, videoKey), "within the minute: the same row version").toEqual(first);

    const later = advance(2);
    await fetchCaptions(captioned);
    const refreshed = await entryOf(accountId, videoKey);
    expect(refreshed.version).not.toBe(first.version);
    sameInstant(refreshed.fetched_at, later);
  });

  it("a store hit moves its entry back to the top at once when another entry is newer", async () => {
    const accountId = yt.server.account.id;
    advance(1);
    await fetchCaptions(json3Captioned);
    expect(await newestFirst(accountId)).toEqual([json3Captioned, captioned]);

    const again = advance(1);
    await fetchCaptions(captioned);
    sameInstant((await entryOf(accountId, `youtube:${captioned}`)).fetched_at, again);
    expect(await newestFirst(accountId)).toEqual([captioned, json3Captioned]);
  });

  it("a delivery with other words updates the entry at once and indexes them; the same words again write nothing", async () => {
    const { account } = await yt.server.platform.accounts.create({ plan: "pro", credits: 5 });
    const { library } = yt.server.platform;
    const videoKey = "file:lecture";
    advance(1);
    await library.record(account.id, lecture("The first draft of the lecture."));
    const first = await entryOf(account.id, videoKey);

    advance(10);
    await library.record(account.id, lecture("The first draft of the lecture."));
    expect(await entryOf(account.id, videoKey)).toEqual(first);

    const revisedAt = advance(10);
    await library.record(account.id, lecture("A revised lecture about hummingbirds."));
    const revised = await entryOf(account.id, videoKey);
    expect(revised.content_hash).not.toBe(first.content_hash);
    sameInstant(revised.fetched_at, revisedAt);
    const found = await library.search(account.id, { query: "hummingbirds", limit: 10 });
    expect(found.rows.map((hit) => hit.video_id)).toEqual(["lecture"]);
  });
});

function lecture(text: string): FullTranscript {
  return mediaTranscript({
    video_id: "lecture",
    title: "A lecture",
    channel: "Example University",
    language: "en",
    segments: [{ start: 0, duration: 4, text }],
  });
}
