import { parseVideoReference } from "../../adapters/youtube/video-reference.ts";
import { SourceError } from "../source-error.ts";
import { type EgressCalls, guardedCall } from "../ytdlp/guarded-call.ts";
import type { YtdlpCalls } from "../ytdlp/ytdlp-source.ts";
import { liveResolutionOfInfoDict } from "./live-info-dict.ts";
import type { LiveResolution, LiveResolveOptions, LiveSource, LiveStreamRef } from "./live-source.ts";

/** The yt-dlp extractors that read live broadcasts: a YouTube video, a Twitch channel. */
export const liveExtractors = ["Youtube", "TwitchStream"] as const;

/** Twitch paths that are no channel: its own pages, and a channel's videos and clips. */
const twitchPages = new Set([
  "videos",
  "directory",
  "downloads",
  "jobs",
  "p",
  "settings",
  "subscriptions",
  "turbo",
  "search",
]);

export interface YtdlpLiveOptions {
  /** yt-dlp; null when it is not installed, and then these links are refused with `absentAdvice`. */
  engine: Pick<YtdlpCalls, "extract"> | null;
  absentAdvice: string;
  egress: EgressCalls;
  /** Milliseconds a resolution may take; default 60 s. */
  deadlineMs?: number;
}

/**
 * YouTube live videos and Twitch channels, resolved by yt-dlp through the egress guard, each
 * time afresh: their playlists' addresses are signed and expire within hours.
 */
export class YtdlpLiveStreams implements LiveSource {
  constructor(private readonly options: YtdlpLiveOptions) {}

  match(url: URL): LiveStreamRef | null {
    const host = url.hostname.toLowerCase().replace(/^(www|m)\./, "");
    if (host === "twitch.tv") {
      const parts = url.pathname.split("/").filter(Boolean);
      const [channel] = parts;
      if (parts.length === 1 && channel && /^\w{2,25}$/.test(channel) && !twitchPages.has(channel.toLowerCase())) {
        return {
          kind: "platform",
          platform: "twitch",
          url: `https://www.twitch.tv/${channel.toLowerCase()}`,
          recording: null,
        };
      }
      return null;
    }
    const reference = parseVideoReference(url.href);
    if (reference.kind !== "youtube") return null;
    return {
      kind: "platform",
      platform: "youtube",
      url: `https://www.youtube.com/watch?v=${reference.videoId}`,
      recording: reference.videoId,
    };
  }

  async resolve(ref: LiveStreamRef, options: LiveResolveOptions = {}): Promise<LiveResolution> {
    if (ref.kind !== "platform") throw new TypeError("yt-dlp resolves platform streams only");
    const label = ref.platform === "youtube" ? "YouTube live" : "Twitch";
    const engine = this.options.engine;
    if (!engine) {
      throw new SourceError(
        "unsupported",
        `${label} streams need yt-dlp, which this server does not have. ${this.options.absentAdvice}`,
      );
    }
    const deadlineMs = this.options.deadlineMs ?? 60_000;
    const info = await this.extract(engine, ref, label, deadlineMs, options).catch((error: unknown) => {
      // yt-dlp refuses an announced event ("This live event will begin in …"): it is waiting, not failing.
      if (error instanceof SourceError && error.kind === "live_stream") return null;
      throw error;
    });
    if (info === null) {
      const videoId =
        ref.platform === "youtube" ? new URL(ref.url).searchParams.get("v") : new URL(ref.url).pathname.slice(1);
      return {
        state: "waiting",
        startsAt: null,
        details: { platform: ref.platform, videoId, title: null, channel: null },
      };
    }
    return liveResolutionOfInfoDict(ref.platform, ref.url, info);
  }

  private extract(
    engine: Pick<YtdlpCalls, "extract">,
    ref: Extract<LiveStreamRef, { kind: "platform" }>,
    label: string,
    deadlineMs: number,
    options: LiveResolveOptions,
  ) {
    return guardedCall(
      this.options.egress,
      { url: ref.url, label },
      { maxBytes: 50 * 1024 * 1024, deadlineMs },
      this.options.absentAdvice,
      (proxy) =>
        engine.extract(ref.url, {
          proxy,
          deadlineMs,
          ...(options.signal ? { signal: options.signal } : {}),
          ...(options.accountId === undefined ? {} : { account: options.accountId }),
        }),
    );
  }
}
