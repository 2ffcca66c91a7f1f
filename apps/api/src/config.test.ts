import { describe, expect, it } from "vitest";
import { youtubeConfigFrom } from "./config.ts";

describe("youtubeConfigFrom", () => {
  it("keeps the adapter's defaults when nothing is set", () => {
    expect(youtubeConfigFrom({})).toEqual({});
  });

  it("reads the origin, the proxy list and the timeouts", () => {
    expect(
      youtubeConfigFrom({
        VERBATIM_YOUTUBE_ORIGIN: "http://egress.internal:8080/",
        VERBATIM_PROXY_URLS: "http://user:pw@proxy-a:3128, http://proxy-b:3128",
        VERBATIM_UPSTREAM_TIMEOUT_MS: "5000",
        VERBATIM_UPSTREAM_BUDGET_MS: "20000",
      }),
    ).toEqual({
      origin: "http://egress.internal:8080",
      proxyUrls: ["http://user:pw@proxy-a:3128", "http://proxy-b:3128"],
      attemptTimeoutMs: 5000,
      budgetMs: 20000,
    });
  });

  it("names the variable that holds a bad value", () => {
    expect(() => youtubeConfigFrom({ VERBATIM_PROXY_URLS: "socks5://proxy:1080" })).toThrow(/VERBATIM_PROXY_URLS/);
    expect(() => youtubeConfigFrom({ VERBATIM_YOUTUBE_ORIGIN: "not a url" })).toThrow(/VERBATIM_YOUTUBE_ORIGIN/);
    expect(() => youtubeConfigFrom({ VERBATIM_UPSTREAM_TIMEOUT_MS: "soon" })).toThrow(/VERBATIM_UPSTREAM_TIMEOUT_MS/);
  });
});
