import type { PublicFetch } from "../../adapters/net/public-fetch.ts";
import { DirectLiveStreams } from "./direct-streams.ts";
import type { LiveDetails, LiveSource } from "./live-source.ts";
import { LiveSources } from "./live-source.ts";

export type { LiveDetails, LiveResolution, LiveSource, LiveStreamRef } from "./live-source.ts";
export { LiveSources } from "./live-source.ts";
export { liveExtractors, YtdlpLiveStreams } from "./ytdlp-live.ts";

/**
 * The live sources: the platforms' broadcasts first (YouTube and Twitch through yt-dlp, with the
 * platform sources' sidecar and egress guard; absent on a server without them), then any address
 * streamed directly, read through `fetch`.
 */
export function createLiveSources(platforms: LiveSource | null, fetch: PublicFetch): LiveSources {
  return new LiveSources([...(platforms ? [platforms] : []), new DirectLiveStreams(fetch)]);
}

/** The wire's `source` block of a session. */
export function liveSourceView(url: string, reading: "hls" | "icecast", details: LiveDetails) {
  return {
    url,
    platform: details.platform,
    reading,
    video_id: details.videoId,
    title: details.title,
    channel: details.channel,
  };
}
