import { SourceError } from "../source-error.ts";
import type { InfoDict } from "../ytdlp/info-dict.ts";
import { httpAddress, trimmedText } from "../ytdlp/info-dict-values.ts";
import type { LiveDetails, LiveResolution } from "./live-source.ts";

/** Protocols of yt-dlp formats that are an HLS playlist, which a live reader follows. */
const hlsProtocols = new Set(["m3u8", "m3u8_native"]);

/**
 * What a live item's info dict (`yt-dlp -J` of a YouTube live video or a Twitch channel) says of
 * its stream: upcoming (`waiting`, with its scheduled start), live with the HLS playlist of its
 * smallest audio-only format (YouTube's 233 and 234, Twitch's `audio_only`; else its smallest
 * format with sound), or over. An item that was never live is refused as a recording.
 */
export function liveResolutionOfInfoDict(platform: "youtube" | "twitch", url: string, info: InfoDict): LiveResolution {
  const details: LiveDetails = {
    platform,
    videoId: trimmedText(platform === "twitch" ? (info.uploader_id ?? info.display_id ?? info.id) : info.id) ?? null,
    title: trimmedText(info.title) ?? trimmedText(info.fulltitle) ?? null,
    channel: trimmedText(info.channel) ?? trimmedText(info.uploader) ?? null,
  };
  const status = trimmedText(info.live_status);
  if (status === "is_upcoming") {
    const seconds = info.release_timestamp;
    const startsAt = typeof seconds === "number" && Number.isFinite(seconds) ? new Date(seconds * 1000) : null;
    return { state: "waiting", startsAt, details };
  }
  if (status === "was_live" || status === "post_live") return { state: "over", details };
  if (info.is_live !== true && status !== "is_live") {
    throw new SourceError("not_live", `${url} is not live: it is a recording, which the video endpoint transcribes.`);
  }
  const address = audioPlaylistOf(info);
  if (!address) throw new SourceError("no_audio_stream", `${url} is live, but offers no HLS stream with sound.`);
  return { state: "live", reading: "hls", address, details };
}

/** The playlist of the smallest audio-only HLS format, else of the smallest HLS format with sound. */
function audioPlaylistOf(info: InfoDict): string | null {
  const formats = (Array.isArray(info.formats) ? info.formats : []).filter(
    (format): format is Record<string, unknown> => typeof format === "object" && format !== null,
  );
  const candidates = formats.filter(
    (format) =>
      hlsProtocols.has(trimmedText(format.protocol) ?? "") &&
      httpAddress(format.url) !== null &&
      format.acodec !== "none",
  );
  const audioOnly = (format: Record<string, unknown>) =>
    format.vcodec === "none" || trimmedText(format.format_id) === "audio_only";
  const rate = (format: Record<string, unknown>) => {
    const value = [format.abr, format.tbr].find((candidate) => typeof candidate === "number" && candidate > 0);
    return typeof value === "number" ? value : Number.MAX_SAFE_INTEGER;
  };
  const chosen =
    candidates.filter(audioOnly).sort((a, b) => rate(a) - rate(b))[0] ??
    candidates.sort((a, b) => rate(a) - rate(b))[0];
  return chosen ? httpAddress(chosen.url) : null;
}
