import type { CaptionTrack } from "./platform-source.ts";

/**
 * The captions-first rule, for every platform: the creator's own track in the requested
 * language; else the platform's generated captions in the requested language (where it offers
 * them) or in the item's own language; else the creator's track in the item's own language,
 * then any of the creator's tracks; and when no language is known at all, a lone generated
 * track. Without a requested language, the item's own language is asked for. Languages match
 * exactly first, then by their base subtag (`pt-BR` takes `pt`).
 */
export function chooseCaptionTrack(
  tracks: readonly CaptionTrack[],
  requested: string | undefined,
  itemLanguage: string | null,
): CaptionTrack | null {
  const manual = tracks.filter((track) => track.kind === "manual");
  const generated = tracks.filter((track) => track.kind === "auto");
  const wanted = requested ?? itemLanguage ?? undefined;
  return (
    inLanguage(manual, wanted) ??
    inLanguage(generated, wanted) ??
    inLanguage(generated, itemLanguage ?? undefined) ??
    inLanguage(manual, itemLanguage ?? undefined) ??
    manual[0] ??
    (wanted === undefined && generated.length === 1 ? generated[0] : undefined) ??
    null
  );
}

function inLanguage(tracks: readonly CaptionTrack[], language: string | undefined): CaptionTrack | undefined {
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
