import { describe, expect, it } from "vitest";
import { parseChannelReference, parsePlaylistReference } from "./list-reference.ts";

const channelId = "UCTwECeGqMZee77BjdoYtI2Q";

describe("parseChannelReference", () => {
  it.each([
    channelId,
    ` ${channelId} `,
    `https://www.youtube.com/channel/${channelId}`,
    `https://www.youtube.com/channel/${channelId}/videos`,
    `youtube.com/channel/${channelId}?view=0`,
  ])("reads the UC id of %s", (input) => {
    expect(parseChannelReference(input)).toEqual({ kind: "id", channelId });
  });

  it.each([
    ["@creativecommons", "https://www.youtube.com/@creativecommons"],
    ["creativecommons", "https://www.youtube.com/@creativecommons"],
    ["@Mr.Beast_6000", "https://www.youtube.com/@Mr.Beast_6000"],
    ["https://www.youtube.com/@creativecommons/shorts", "https://www.youtube.com/@creativecommons"],
    ["https://m.youtube.com/c/JeffGeerling/streams", "https://www.youtube.com/c/JeffGeerling"],
    ["http://youtube.com/user/creativecommons?sub_confirmation=1", "https://www.youtube.com/user/creativecommons"],
  ])("resolves %s through %s", (input, url) => {
    expect(parseChannelReference(input)).toEqual({ kind: "vanity", url });
  });

  it.each([
    "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
    "https://www.youtube.com/watch?v=dQw4w9WgXcQ&list=PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr",
    "youtu.be/dQw4w9WgXcQ",
    "https://m.youtube.com/shorts/dQw4w9WgXcQ",
    "https://www.youtube.com/live/dQw4w9WgXcQ?feature=share",
    "https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ",
  ])("takes %s for a video", (input) => {
    expect(parseChannelReference(input)).toEqual({ kind: "video" });
  });

  it.each([
    "https://example.com/@creativecommons",
    "https://feeds.example.org/podcast.rss",
    "http://example.com/episode.mp3",
    "https://vimeo.com/76979871",
  ])("takes %s for another site", (input) => {
    expect(parseChannelReference(input)).toEqual({ kind: "other-site" });
  });

  it.each([
    "",
    "!!",
    "two words",
    "www.youtube.com",
    "https://www.youtube.com/feed/trending",
    "https://www.youtube.com/channel/not-an-id",
    "https://www.youtube.com/watch?v=short",
    "Mr.Beast",
    "ftp://example.com/x",
  ])("refuses %j as malformed", (input) => {
    expect(parseChannelReference(input)).toEqual({ kind: "malformed" });
  });

  it("reads a bare video id as a handle without its @, which YouTube resolves or not", () => {
    expect(parseChannelReference("dQw4w9WgXcQ")).toEqual({
      kind: "vanity",
      url: "https://www.youtube.com/@dQw4w9WgXcQ",
    });
  });
});

describe("parsePlaylistReference", () => {
  it.each([
    ["PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr", "PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr"],
    ["UULFbfnHqxXs_K3kvaH-WlNlig", "UULFbfnHqxXs_K3kvaH-WlNlig"],
    ["RDdQw4w9WgXcQ", "RDdQw4w9WgXcQ"],
    ["OLAK5uy_kZ0xXx8Yb1Qv3n", "OLAK5uy_kZ0xXx8Yb1Qv3n"],
    ["LL", "LL"],
    ["https://www.youtube.com/playlist?list=PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr", "PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr"],
    [
      "https://youtube.com/watch?v=dQw4w9WgXcQ&list=PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr&index=3",
      "PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr",
    ],
    ["https://youtu.be/dQw4w9WgXcQ?list=PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr", "PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr"],
    ["music.youtube.com/playlist?list=OLAK5uy_kZ0xXx8Yb1Qv3n", "OLAK5uy_kZ0xXx8Yb1Qv3n"],
  ])("reads %s as %s", (input, playlistId) => {
    expect(parsePlaylistReference(input)).toEqual({ kind: "id", playlistId });
  });

  it.each([
    "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
    "https://youtu.be/dQw4w9WgXcQ",
    "https://www.youtube.com/shorts/dQw4w9WgXcQ",
    "https://www.youtube.com/watch?v=dQw4w9WgXcQ&list=pl-lowercase",
  ])("takes %s for a video", (input) => {
    expect(parsePlaylistReference(input)).toEqual({ kind: "video" });
  });

  it.each([
    "https://example.com/playlist?list=PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr",
    "https://feeds.example.org/podcast.rss",
  ])("takes %s for another site", (input) => {
    expect(parsePlaylistReference(input)).toEqual({ kind: "other-site" });
  });

  it.each([
    "",
    "!!",
    "has spaces",
    "pl-lowercase",
    "dQw4w9WgXcQ",
    "https://www.youtube.com/playlist?list=pl-lowercase",
    "https://www.youtube.com/@creativecommons",
  ])("refuses %j as malformed", (input) => {
    expect(parsePlaylistReference(input)).toEqual({ kind: "malformed" });
  });
});
