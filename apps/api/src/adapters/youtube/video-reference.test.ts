import { describe, expect, it } from "vitest";
import { parseVideoReference } from "./video-reference.ts";

const id = "dQw4w9WgXcQ";

describe("parseVideoReference", () => {
  it.each([
    id,
    ` ${id} `,
    `https://www.youtube.com/watch?v=${id}`,
    `https://www.youtube.com/watch?feature=share&v=${id}&t=42s&list=PL123`,
    `http://youtube.com/watch?v=${id}`,
    `youtube.com/watch?v=${id}`,
    `https://m.youtube.com/watch?v=${id}`,
    `https://music.youtube.com/watch?v=${id}&si=abc`,
    `https://youtu.be/${id}`,
    `youtu.be/${id}?t=10`,
    `https://www.youtube.com/shorts/${id}?feature=share`,
    `https://www.youtube.com/live/${id}`,
    `https://www.youtube.com/embed/${id}?start=3`,
    `https://www.youtube-nocookie.com/embed/${id}`,
    `https://www.youtube.com/v/${id}`,
  ])("reads the video id from %s", (input) => {
    expect(parseVideoReference(input)).toEqual({ kind: "youtube", videoId: id });
  });

  it.each([
    "https://www.youtube.com/@TheDailyShow",
    "https://www.youtube.com/playlist?list=PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr",
    "https://www.youtube.com/watch?v=short",
    "https://youtu.be/",
    "https://www.youtube.com/shorts/",
  ])("knows %s is YouTube but names no video", (input) => {
    expect(parseVideoReference(input)).toEqual({ kind: "youtube-without-video" });
  });

  it("leaves other sites to the audio sources", () => {
    expect(parseVideoReference("https://example.com/feed.xml")).toMatchObject({ kind: "other-url" });
  });

  it.each(["not a video", "ftp://youtube.com/watch?v=dQw4w9WgXcQ", "dQw4w9WgXc", "localhost"])(
    "refuses %s",
    (input) => {
      expect(parseVideoReference(input)).toEqual({ kind: "malformed" });
    },
  );
});
