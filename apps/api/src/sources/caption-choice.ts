import type { CaptionTrack } from "./platform-source.ts";

/**
 * The captions-first rule, the one choice of a track for every platform: the creator's own track
 * (a publisher's transcript is one) in the requested language; else the platform's generated
 * captions in the requested language (where it offers them); else the creator's track in the
 * item's own language, then the generated one; else any of the creator's tracks; and when no
 * language is known at all, a lone generated track. Without a requested language, the item's own
 * language is asked for. Languages match exactly first, then by their base subtag (`pt-BR` takes
 * `pt`). Each source says what the item's own language is (YouTube: the language its speech
 * recognition ran on, else its default track's).
 */
export function chooseCaptionTrack<Track extends Pick<CaptionTrack, "language" | "kind">>(
  tracks: readonly Track[],
  requested: string | undefined,
  itemLanguage: string | null,
): Track | null {
  const creators = tracks.filter((track) => track.kind !== "auto");
  const generated = tracks.filter((track) => track.kind === "auto");
  const wanted = requested ?? itemLanguage ?? undefined;
  return (
    inLanguage(creators, wanted) ??
    inLanguage(generated, wanted) ??
    inLanguage(creators, itemLanguage ?? undefined) ??
    inLanguage(generated, itemLanguage ?? undefined) ??
    creators[0] ??
    (wanted === undefined && generated.length === 1 ? generated[0] : undefined) ??
    null
  );
}

function inLanguage<Track extends Pick<CaptionTrack, "language">>(
  tracks: readonly Track[],
  language: string | undefined,
): Track | undefined {
  if (language === undefined) return undefined;
  const wanted = language.toLowerCase();
  const base = baseOf(wanted);
  return (
    tracks.find((track) => track.language.toLowerCase() === wanted) ??
    tracks.find((track) => baseOf(track.language.toLowerCase()) === base)
  );
}

function baseOf(tag: string): string {
  return tag.split("-")[0] ?? tag;
}
