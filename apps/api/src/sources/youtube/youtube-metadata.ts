import { translationTargetsOf } from "../../adapters/youtube/caption-source.ts";
import { VideoUnavailableError } from "../../adapters/youtube/upstream-errors.ts";
import type { VideoPageSource } from "../../adapters/youtube/video-metadata.ts";
import { chaptersFromDescription, type ItemMetadata } from "../item-metadata.ts";
import { SourceError } from "../source-error.ts";

/**
 * A YouTube video's metadata from its page (the player response): chapters are the
 * description's timestamps, as YouTube makes them, and the language is that of YouTube's speech
 * recognition track (a creator's track may be a translation). The player response says nothing
 * of likes or comments. Failures are `SourceError`s.
 */
export async function youtubeMetadata(pages: VideoPageSource, videoId: string): Promise<ItemMetadata> {
  const page = await pages.videoPage(videoId).catch((error: unknown) => {
    throw sourceErrorOf(error);
  });
  const { details, tracks } = page;
  const creatorsFirst = [
    ...tracks.filter((track) => track.kind === "manual"),
    ...tracks.filter((track) => track.kind === "auto"),
  ];
  return {
    platform: "youtube",
    itemId: details.videoId,
    url: `https://www.youtube.com/watch?v=${details.videoId}`,
    title: details.title,
    description: details.description,
    channel: {
      id: page.channelId,
      name: details.channel,
      url: page.channelUrl ?? (page.channelId ? `https://www.youtube.com/channel/${page.channelId}` : null),
    },
    durationSeconds: details.durationSeconds,
    publishedAt: page.publishedAt,
    language: tracks.find((track) => track.kind === "auto")?.language ?? null,
    tags: page.keywords,
    chapters: chaptersFromDescription(details.description, details.durationSeconds),
    thumbnails: [...page.thumbnails].sort((a, b) => (a.width ?? 0) - (b.width ?? 0)),
    stats: { views: page.views, likes: null, comments: null },
    liveStatus: details.wasLive ? "was_live" : "not_live",
    captions: creatorsFirst.map((track) => ({
      language: track.language,
      name: track.name,
      kind: track.kind,
      translationTargets: translationTargetsOf(track, page.translationLanguages).map((target) => ({
        language: target.languageCode,
        name: target.languageName,
      })),
    })),
    podcast: null,
  };
}

/** A player response never says `was_live` or anything of captions: a video it refuses is unavailable. */
function sourceErrorOf(error: unknown): unknown {
  if (!(error instanceof VideoUnavailableError)) return error;
  const { reason } = error;
  if (reason !== "was_live" && reason !== "captions_disabled" && reason !== "no_captions") return error;
  return new SourceError("unavailable", error.message, { cause: error });
}
