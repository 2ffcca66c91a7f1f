import { describe, expect, it } from "vitest";
import { translationTargetsOf } from "../../adapters/youtube/caption-source.ts";
import { sameWrittenLanguage } from "../../adapters/youtube/language-tags.ts";
import type { CaptionTrack } from "../../adapters/youtube/player-response.ts";
import { chooseCaptionTrack as chooseByRule } from "../caption-choice.ts";
import { originalLanguageOf } from "./youtube-source.ts";

/** YouTube's choice: the one captions-first rule, with the video's original language as its tracks tell it. */
function chooseCaptionTrack(
  tracks: readonly CaptionTrack[],
  requested: string | undefined,
  defaultTrackIndex: number | null,
) {
  return chooseByRule(tracks, requested, originalLanguageOf(tracks, defaultTrackIndex)) ?? undefined;
}

const track = (language: string, kind: "manual" | "auto" = "manual"): CaptionTrack => ({
  language,
  kind,
  name: language,
  baseUrl: `https://www.youtube.com/api/timedtext?lang=${language}${kind === "auto" ? "&kind=asr" : ""}`,
  translatable: true,
});

const tracks = [track("zh"), track("en", "auto"), track("en"), track("pt-BR"), track("de", "auto")];

describe("chooseCaptionTrack", () => {
  it("prefers the exact language, manual before automatic", () => {
    expect(chooseCaptionTrack(tracks, "en", null)).toEqual(track("en"));
  });

  it("matches case-insensitively and by base language both ways", () => {
    expect(chooseCaptionTrack(tracks, "PT-br", null)).toEqual(track("pt-BR"));
    expect(chooseCaptionTrack(tracks, "pt", null)).toEqual(track("pt-BR"));
    expect(chooseCaptionTrack(tracks, "en-GB", null)).toEqual(track("en"));
  });

  it("falls back to the manual track in the original language (the automatic track's)", () => {
    expect(chooseCaptionTrack(tracks, "fr", null)).toEqual(track("en"));
    expect(chooseCaptionTrack(tracks, undefined, null)).toEqual(track("en"));
  });

  it("falls back to the automatic track when the original language has no manual one", () => {
    const onlyAuto = [track("zh"), track("ja", "auto")];
    expect(chooseCaptionTrack(onlyAuto, "fr", null)).toEqual(track("ja", "auto"));
  });

  it("uses YouTube's default track when no automatic track tells the original language", () => {
    expect(chooseCaptionTrack([track("zh"), track("cs")], "fr", 1)).toEqual(track("cs"));
    expect(chooseCaptionTrack([track("zh"), track("cs")], "fr", null)).toEqual(track("zh"));
  });
});

describe("sameWrittenLanguage", () => {
  it("reads regions and a language's usual script as the same written language", () => {
    expect(sameWrittenLanguage("en-GB", "en")).toBe(true);
    expect(sameWrittenLanguage("zh-CN", "zh-Hans")).toBe(true);
    expect(sameWrittenLanguage("zh", "zh-Hans")).toBe(true);
    expect(sameWrittenLanguage("zh-TW", "zh-Hant")).toBe(true);
  });

  it("tells scripts apart, and languages", () => {
    expect(sameWrittenLanguage("zh-Hans", "zh-Hant")).toBe(false);
    expect(sameWrittenLanguage("zh", "zh-TW")).toBe(false);
    expect(sameWrittenLanguage("sr", "sr-Latn")).toBe(false);
    expect(sameWrittenLanguage("en", "de")).toBe(false);
  });
});

describe("translationTargetsOf", () => {
  const offered = ["en", "de", "zh-Hans", "zh-Hant"].map((languageCode) => ({ languageCode, languageName: null }));

  it("offers every language but the track's own, Traditional Chinese for a Simplified track included", () => {
    const codes = (of: CaptionTrack) => translationTargetsOf(of, offered).map((language) => language.languageCode);
    expect(codes(track("zh"))).toEqual(["en", "de", "zh-Hant"]);
    expect(codes(track("zh-TW"))).toEqual(["en", "de", "zh-Hans"]);
    expect(codes(track("en-GB"))).toEqual(["de", "zh-Hans", "zh-Hant"]);
  });

  it("offers nothing for a track YouTube does not translate", () => {
    expect(translationTargetsOf({ ...track("en"), translatable: false }, offered)).toEqual([]);
  });
});
