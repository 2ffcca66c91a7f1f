import { describe, expect, it } from "vitest";
import { parseFfmetadata } from "./media-tags.ts";

describe("parseFfmetadata", () => {
  it("reads the global tags and the chapters in seconds", () => {
    const output = [
      ";FFMETADATA1",
      "title=Ask Not",
      "ARTIST=John F. Kennedy",
      "comment=Two lines\\",
      "of comment\\; with \\= and \\\\",
      "[CHAPTER]",
      "TIMEBASE=1/1000",
      "START=0",
      "END=3931",
      "title=My fellow Americans",
      "[CHAPTER]",
      "TIMEBASE=1/44100",
      "START=173362",
      "END=485100",
      "title=Ask not",
      "[STREAM]",
      "title=not a tag of the file",
      "",
    ].join("\n");
    expect(parseFfmetadata(output)).toEqual({
      tags: { title: "Ask Not", artist: "John F. Kennedy", comment: "Two lines\nof comment; with = and \\" },
      chapters: [
        { title: "My fellow Americans", start: 0, end: 3.931 },
        { title: "Ask not", start: 3.931, end: 11 },
      ],
    });
  });

  it("drops chapters without times and keeps the first of a repeated tag", () => {
    const output = ";FFMETADATA1\ntitle=First\ntitle=Second\n[CHAPTER]\nTIMEBASE=0/0\nSTART=x\ntitle=Broken\n";
    expect(parseFfmetadata(output)).toEqual({ tags: { title: "First" }, chapters: [] });
  });
});
