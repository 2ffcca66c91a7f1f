import { describe, expect, it } from "vitest";
import { chaptersFromDescription, chaptersFromStarts, countOf } from "./item-metadata.ts";

// The contents block of a recorded description (ud9d5cMDP_0, packages/testkit/fixtures/youtube/newpipe-extractor).
const mailab = [
  "AUSFÜHRLICHE QUELLEN & WEITERE INFOS:",
  "https://docs.google.com/document/d/1MTxmsIV06HiOaifIApivYQh4jMLwmHiZN5oA_YPfpLE/edit?usp=sharing ",
  "",
  "INHALT",
  "0:00 Ein erstaunlich kontroverses Thema",
  "2:44 Was ist Vitamin D?",
  "6:04 Die Saisonalitätshypothese",
  "8:18 Klinische Studien zu Vitamin D",
  "",
  "► maiLab abonnieren: http://bit.ly/2kru8qh ",
].join("\r\n");

describe("chaptersFromDescription", () => {
  it("reads the timestamps at the starts of lines, each chapter ending where the next starts", () => {
    expect(chaptersFromDescription(mailab, 1010)).toEqual([
      { title: "Ein erstaunlich kontroverses Thema", start: 0, end: 164 },
      { title: "Was ist Vitamin D?", start: 164, end: 364 },
      { title: "Die Saisonalitätshypothese", start: 364, end: 498 },
      { title: "Klinische Studien zu Vitamin D", start: 498, end: 1010 },
    ]);
  });

  it("reads hours, brackets and separators, and ends the last chapter at null when the length is unknown", () => {
    const description = "(0:00) Intro\n[12:30] - Q&A\n1:02:03 | Outro";
    expect(chaptersFromDescription(description, null)).toEqual([
      { title: "Intro", start: 0, end: 750 },
      { title: "Q&A", start: 750, end: 3723 },
      { title: "Outro", start: 3723, end: null },
    ]);
  });

  it.each([
    ["fewer than three timestamps", "0:00 Intro\n5:00 End"],
    ["a first timestamp after 0:00", "0:10 Intro\n1:00 Middle\n2:00 End"],
    ["timestamps out of order", "0:00 Intro\n5:00 Middle\n3:00 End"],
    ["timestamps inside sentences", "At 0:00 it starts, at 1:00 it goes on, at 2:00 it ends"],
    ["no description", null],
  ])("finds none with %s", (_case, description) => {
    expect(chaptersFromDescription(description, 600)).toEqual([]);
  });

  it("skips lines too long to be a chapter's, in linear time however long", () => {
    const hostile = `0:00 Intro\n1:00 ${" ".repeat(200_000)}x\n2:00 Middle\n3:00 End`;
    const started = process.cpuUsage();
    expect(chaptersFromDescription(hostile, 600).map((chapter) => chapter.title)).toEqual(["Intro", "Middle", "End"]);
    const { user, system } = process.cpuUsage(started);
    expect(user + system).toBeLessThan(500_000);
  });
});

describe("chaptersFromStarts", () => {
  it("sorts, drops repeated, negative, late and untitled starts, and cuts long titles", () => {
    expect(
      chaptersFromStarts(
        [
          { title: "Second", start: 30 },
          { title: "First", start: 0 },
          { title: "Again", start: 30 },
          { title: "Before", start: -1 },
          { title: "After", start: 90 },
          { title: "   ", start: 40 },
          { title: "x".repeat(500), start: 50 },
          { title: "Not a number", start: Number.NaN },
        ],
        60,
      ),
    ).toEqual([
      { title: "First", start: 0, end: 30 },
      { title: "Second", start: 30, end: 50 },
      { title: "x".repeat(200), start: 50, end: 60 },
    ]);
  });
});

describe("countOf", () => {
  it.each([
    [249, 249],
    ["5675", 5675],
    [-1, null],
    [1.5, null],
    ["12k", null],
    [null, null],
  ])("reads %j as %j", (value, count) => {
    expect(countOf(value)).toBe(count);
  });
});
