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

describe("platformsConfigFrom: VERBATIM_YTDLP_CONCURRENCY and VERBATIM_YTDLP_ACCOUNT_CONCURRENCY", () => {
  it("runs 8 yt-dlp calls at once, 2 of one account, when unset", () => {
    expect(platformsConfigFrom({})).toMatchObject({ ytdlpConcurrency: 8, ytdlpAccountConcurrency: 2 });
  });

  it("gives an account a quarter of the total set, at least 1, unless its own share is set", () => {
    expect(platformsConfigFrom({ VERBATIM_YTDLP_CONCURRENCY: "20" })).toMatchObject({
      ytdlpConcurrency: 20,
      ytdlpAccountConcurrency: 5,
    });
    expect(platformsConfigFrom({ VERBATIM_YTDLP_CONCURRENCY: "3" })).toMatchObject({
      ytdlpConcurrency: 3,
      ytdlpAccountConcurrency: 1,
    });
    expect(
      platformsConfigFrom({ VERBATIM_YTDLP_CONCURRENCY: "20", VERBATIM_YTDLP_ACCOUNT_CONCURRENCY: "20" }),
    ).toMatchObject({ ytdlpConcurrency: 20, ytdlpAccountConcurrency: 20 });
  });

  it.each([
    [{ VERBATIM_YTDLP_CONCURRENCY: "0" }, /^VERBATIM_YTDLP_CONCURRENCY must be an integer of at least 1, not "0"$/],
    [{ VERBATIM_YTDLP_CONCURRENCY: "2.5" }, /^VERBATIM_YTDLP_CONCURRENCY must be an integer/],
    [{ VERBATIM_YTDLP_ACCOUNT_CONCURRENCY: "0" }, /^VERBATIM_YTDLP_ACCOUNT_CONCURRENCY must be an integer/],
    [
      { VERBATIM_YTDLP_CONCURRENCY: "4", VERBATIM_YTDLP_ACCOUNT_CONCURRENCY: "5" },
      /^VERBATIM_YTDLP_ACCOUNT_CONCURRENCY \(5\) must be at most VERBATIM_YTDLP_CONCURRENCY \(4\)$/,
    ],
  ])("refuses %j", (env, message) => {
    expect(() => platformsConfigFrom(env)).toThrow(message);
  });
});
