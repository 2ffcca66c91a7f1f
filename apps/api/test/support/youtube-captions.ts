import type { CaptionSource, VideoCaptions } from "../../src/adapters/youtube/index.ts";
import { chooseCaptionTrack } from "../../src/sources/caption-choice.ts";
import { originalLanguageOf } from "../../src/sources/youtube/youtube-source.ts";

/** A video's captions in `language`, the track chosen as the YouTube source chooses it, read through the adapter. */
export async function youtubeCaptions(
  captions: CaptionSource,
  videoId: string,
  language: string | undefined,
): Promise<VideoCaptions> {
  const listing = await captions.listCaptions(videoId);
  const track = chooseCaptionTrack(
    listing.tracks,
    language,
    originalLanguageOf(listing.tracks, listing.defaultTrackIndex),
  );
  if (!track) throw new Error(`video ${videoId} has no caption track`);
  return captions.readCaptions(listing, track);
}
