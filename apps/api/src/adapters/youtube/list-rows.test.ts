import { describe, expect, it } from "vitest";
import { parseClockDuration, parseCount, relativeTimeToDate } from "./list-rows.ts";

describe("parseCount", () => {
  it.each([
    ["12,345 views", 12_345],
    ["1 view", 1],
    ["No views", 0],
    ["1.2M views", 1_200_000],
    ["895k views", 895_000],
    ["191m views", 191_000_000],
    ["2.5B views", 2_500_000_000],
    ["1.1bn views", 1_100_000_000],
    ["234K subscribers", 234_000],
    ["102 videos", 102],
  ])("reads %s as %d", (text, count) => {
    expect(parseCount(text)).toBe(count);
  });

  it("answers null for text without a count", () => {
    expect(parseCount("Playlist")).toBeNull();
  });
});

describe("parseClockDuration", () => {
  it.each([
    ["0:59", 59],
    ["4:05", 245],
    ["1:00:01", 3601],
  ])("reads %s as %d seconds", (text, seconds) => {
    expect(parseClockDuration(text)).toBe(seconds);
  });

  it.each(["LIVE", "SHORTS", "Premiere", "12"])("answers null for %s", (text) => {
    expect(parseClockDuration(text)).toBeNull();
  });
});

describe("relativeTimeToDate", () => {
  const now = new Date("2026-05-21T12:00:00Z");

  it.each([
    ["10 seconds ago", "2026-05-21T11:59:50.000Z"],
    ["1 minute ago", "2026-05-21T11:59:00.000Z"],
    ["5 hours ago", "2026-05-21T07:00:00.000Z"],
    ["2 days ago", "2026-05-19T12:00:00.000Z"],
    ["3 weeks ago", "2026-04-30T12:00:00.000Z"],
    ["Streamed 6 months ago", "2025-11-22T12:00:00.000Z"],
    ["Premiered 1 year ago", "2025-05-21T12:00:00.000Z"],
  ])("counts %s back from the clock", (text, iso) => {
    expect(relativeTimeToDate(text, now)).toBe(iso);
  });

  it.each(["Scheduled for 5/30/26, 6:00 PM", "Updated yesterday", ""])("answers null for %j", (text) => {
    expect(relativeTimeToDate(text, now)).toBeNull();
  });
});
