import { describe, expect, it } from "vitest";
import { platformsConfigFrom } from "./config.ts";
import { defaultYtdlpExtractors } from "./sources/ytdlp/ytdlp-extractors.ts";

describe("platformsConfigFrom: VERBATIM_YTDLP_EXTRACTORS", () => {
  it("allows yt-dlp's default extractors when unset or empty", () => {
    expect(platformsConfigFrom({}).extractors).toEqual(defaultYtdlpExtractors);
    expect(platformsConfigFrom({ VERBATIM_YTDLP_EXTRACTORS: " " }).extractors).toEqual(defaultYtdlpExtractors);
  });

  it("allows exactly the extractors listed, by comma or space", () => {
    expect(platformsConfigFrom({ VERBATIM_YTDLP_EXTRACTORS: "Vimeo" }).extractors).toEqual(["Vimeo"]);
    expect(platformsConfigFrom({ VERBATIM_YTDLP_EXTRACTORS: "Vimeo, TikTok Loom" }).extractors).toEqual([
      "Vimeo",
      "TikTok",
      "Loom",
    ]);
  });

  it.each(["Generic", "generic", "Vimeo,Generic", "TikTok GENERIC"])(
    "refuses %j: the generic extractor would read any page on the web",
    (value) => {
      expect(() => platformsConfigFrom({ VERBATIM_YTDLP_EXTRACTORS: value })).toThrow(
        /^VERBATIM_YTDLP_EXTRACTORS may not name "generic": it would read any page on the web$/i,
      );
    },
  );
});
