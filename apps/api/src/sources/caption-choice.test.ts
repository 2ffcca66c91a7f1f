import { describe, expect, it } from "vitest";
import { chooseCaptionTrack } from "./caption-choice.ts";
import type { CaptionTrack } from "./platform-source.ts";

function track(language: string, kind: CaptionTrack["kind"]): CaptionTrack {
  return { language, kind, format: "vtt", url: `https://captions.example/${kind}/${language}.vtt` };
}

describe("chooseCaptionTrack", () => {
  const tracks = [track("en", "manual"), track("de", "manual"), track("en", "auto"), track("fr", "auto")];

  it("takes the creator's track in the requested language over generated ones", () => {
    expect(chooseCaptionTrack(tracks, "de", "en")).toEqual(track("de", "manual"));
    expect(chooseCaptionTrack(tracks, "en", "en")).toEqual(track("en", "manual"));
  });

  it("takes generated captions in the requested language where the platform offers them", () => {
    expect(chooseCaptionTrack(tracks, "fr", "en")).toEqual(track("fr", "auto"));
  });

  it("falls back to generated captions in the item's own language, then to the creator's tracks", () => {
    expect(chooseCaptionTrack([track("en", "auto"), track("de", "manual")], "ja", "en")).toEqual(track("en", "auto"));
    expect(chooseCaptionTrack([track("de", "manual"), track("es", "manual")], "ja", "es")).toEqual(
      track("es", "manual"),
    );
    expect(chooseCaptionTrack([track("de", "manual")], "ja", null)).toEqual(track("de", "manual"));
  });

  it("matches a regional tag by its base language", () => {
    expect(chooseCaptionTrack([track("pt", "manual")], "pt-BR", null)).toEqual(track("pt", "manual"));
    expect(chooseCaptionTrack([track("en-US", "auto")], "en", null)).toEqual(track("en-US", "auto"));
  });

  it("asks for the item's own language when no language is requested", () => {
    expect(chooseCaptionTrack([track("fr", "auto"), track("en", "auto")], undefined, "en")).toEqual(
      track("en", "auto"),
    );
  });

  it("takes the creator's track of an item whose language is unknown, else a lone generated one", () => {
    expect(chooseCaptionTrack([track("ko", "auto"), track("en", "manual")], undefined, null)).toEqual(
      track("en", "manual"),
    );
    expect(chooseCaptionTrack([track("ko", "auto")], undefined, null)).toEqual(track("ko", "auto"));
  });

  it("answers null when the platform offers nothing that fits", () => {
    expect(chooseCaptionTrack([], "en", "en")).toBeNull();
    expect(chooseCaptionTrack([track("ko", "auto"), track("ja", "auto")], "en", null)).toBeNull();
  });
});
