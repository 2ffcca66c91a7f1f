import { describe, expect, it } from "vitest";
import { parseChannelReference, parsePlaylistId } from "./list-reference.ts";

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
    "",
    "www.youtube.com",
    "https://example.com/@creativecommons",
    "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
    "https://www.youtube.com/channel/not-an-id",
    "two words",
  ])("refuses %j", (input) => {
    expect(parseChannelReference(input)).toEqual({ kind: "malformed" });
  });
});

describe("parsePlaylistId", () => {
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
    ["music.youtube.com/playlist?list=OLAK5uy_kZ0xXx8Yb1Qv3n", "OLAK5uy_kZ0xXx8Yb1Qv3n"],
  ])("reads %s as %s", (input, id) => {
    expect(parsePlaylistId(input)).toBe(id);
  });

  it.each([
    "",
    "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
    "https://example.com/playlist?list=PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr",
    "pl-lowercase",
  ])("refuses %j", (input) => {
    expect(parsePlaylistId(input)).toBeNull();
  });
});
