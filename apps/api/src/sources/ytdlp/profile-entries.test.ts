import { readFileSync } from "node:fs";
import { platformFixture } from "@verbatim/testkit/platform-double";
import { describe, expect, it } from "vitest";
import type { InfoDict } from "./info-dict.ts";
import { deepestEntry, entriesPerPage, entryRow, profilePage } from "./profile-entries.ts";
import { ytdlpPlatforms } from "./ytdlp-platforms.ts";
import type { YtdlpEntries } from "./ytdlp-sidecar.ts";

/** What yt-dlp 2026.8.19's list_entries printed for the double's TikTok profile (packages/testkit/fixtures/platforms/tiktok/info). */
const listed: YtdlpEntries = JSON.parse(readFileSync(platformFixture("tiktok/info/profile.json"), "utf8"));
const tiktok = ytdlpPlatforms.find((entry) => entry.platform === "tiktok");
if (!tiktok) throw new Error("no TikTok platform");
const [newest] = listed.entries as [InfoDict];

/** `count` copies of the newest entry, each with an id of its own. */
function entries(count: number): InfoDict[] {
  return Array.from({ length: count }, (_, index) => {
    const id = `7400000000001${String(index).padStart(6, "0")}`;
    return { ...newest, id, url: `https://www.tiktok.com/@verbatim.tests/video/${id}` };
  });
}

describe("entryRow, from a recorded listing", () => {
  it("reads the post's id, address, caption, creator, length, time, plays and still cover", () => {
    expect(entryRow(tiktok, newest)).toEqual({
      videoId: "7400000000000000008",
      url: "https://www.tiktok.com/@verbatim.tests/video/7400000000000000008",
      title: "Ask not what your country can do for you #speech #history",
      duration: 11,
      channel: "verbatim.tests",
      publishedAt: "2024-08-03T00:00:00.000Z",
      stats: { plays: 5675 },
      thumbnailUrl:
        "https://p16-sign-va.tiktokcdn.com/tos-maliva-p-0068/7400000000000000008~tplv-tiktokx-origin.image?x-expires=1790800000&x-signature=verbatim",
    });
  });

  it.each([
    ["an address on another host", { url: "https://evil.example/@verbatim.tests/video/1", webpage_url: undefined }],
    ["an address over http", { url: "http://www.tiktok.com/@verbatim.tests/video/7400000000000000008" }],
    ["an id that is no id", { id: "../../etc/passwd" }],
    ["no id", { id: undefined }],
  ])("takes no row from an entry with %s", (_what, change) => {
    expect(entryRow(tiktok, { ...newest, ...change })).toBeNull();
  });

  it("leaves out what the listing does not say, or says as no count or time", () => {
    const row = entryRow(tiktok, { ...newest, view_count: -1, timestamp: "soon", duration: 0, thumbnails: "none" });
    expect(row).toMatchObject({ stats: null, publishedAt: null, duration: null, thumbnailUrl: null });
  });
});

describe("profilePage", () => {
  it("answers the recorded profile's three posts as its one page", () => {
    const page = profilePage(tiktok, listed, 0);
    expect(page.rows.map((row) => ("videoId" in row ? row.videoId : ""))).toEqual([
      "7400000000000000008",
      "7400000000000000002",
      "7400000000000000001",
    ]);
    expect(page.continuation).toBeNull();
  });

  it("continues where the page ends when yt-dlp listed one entry more than a page", () => {
    const page = profilePage(tiktok, { entries: entries(entriesPerPage + 1) }, 0);
    expect(page.rows).toHaveLength(entriesPerPage);
    expect(page.continuation).toBe(String(entriesPerPage));
  });

  it(`ends the list at entry ${deepestEntry}, however many more the profile has`, () => {
    const last = deepestEntry - entriesPerPage;
    expect(profilePage(tiktok, { entries: entries(entriesPerPage + 1) }, last - entriesPerPage).continuation).toBe(
      String(last),
    );
    expect(profilePage(tiktok, { entries: entries(entriesPerPage + 1) }, last).continuation).toBeNull();
  });
});
