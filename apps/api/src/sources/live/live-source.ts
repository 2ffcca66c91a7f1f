import { SourceError } from "../source-error.ts";

/**
 * How a session reaches its stream, as stored with it: an address given directly (a playlist or a
 * radio stream), or a platform's page, resolved again whenever its signed media address expires.
 */
export type LiveStreamRef =
  | { kind: "direct"; url: string }
  | {
      kind: "platform";
      platform: "youtube" | "twitch";
      url: string;
      /**
       * The item the broadcast's recording stays, whose captions the video endpoint reads later:
       * the session's transcript is that item's library entry until they replace it. Null for a
       * channel's stream, which records under no id known when it plays.
       */
      recording: string | null;
    };

/** What the platform says of the broadcast. */
export interface LiveDetails {
  /** The wire's `platform`: `youtube`, `twitch`, or `file` for a stream given directly. */
  platform: string;
  /** The platform's id of the broadcast; null for a stream given directly. */
  videoId: string | null;
  title: string | null;
  channel: string | null;
}

/** What a stream is now. */
export type LiveResolution =
  | { state: "live"; reading: "hls" | "icecast"; address: string; details: LiveDetails }
  /** Announced and not started; `startsAt` when the platform says. */
  | { state: "waiting"; startsAt: Date | null; details: LiveDetails }
  /** It was live and has ended. */
  | { state: "over"; details: LiveDetails };

/** Limits and cancellation of one resolution. */
export interface LiveResolveOptions {
  signal?: AbortSignal;
  /** The account it is for: yt-dlp gives each account its share. */
  accountId?: string;
  /**
   * The session is being asked for: a stream that is already over (a finished playlist) is a
   * recording, refused. Once admitted, a stream that ended meanwhile is read to its end.
   */
  admission?: boolean;
}

/** A family of live streams: the platforms read through yt-dlp, or addresses streamed directly. */
export interface LiveSource {
  /** The stream an address names, without touching the network; null when it is not this source's. */
  match(url: URL): LiveStreamRef | null;
  /** What the stream is now. Failures are `SourceError`s. */
  resolve(ref: LiveStreamRef, options?: LiveResolveOptions): Promise<LiveResolution>;
}

/** Every live source, asked in order: the platforms before the direct addresses, which take any URL. */
export class LiveSources {
  constructor(private readonly sources: readonly LiveSource[]) {}

  /** The stream an input names; `invalid_input` for what is no http(s) address at all. */
  match(input: string): LiveStreamRef {
    const url = URL.parse(input.trim());
    if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
      throw new SourceError("invalid_input", `${input.slice(0, 200)} is not an http(s) address of a live stream.`);
    }
    if (url.username || url.password) {
      throw new SourceError(
        "invalid_input",
        "The address carries a user name or password; addresses with credentials are not fetched.",
      );
    }
    for (const source of this.sources) {
      const ref = source.match(url);
      if (ref) return ref;
    }
    throw new SourceError("unsupported", `${url.href} is no live stream this server reads.`);
  }

  resolve(ref: LiveStreamRef, options: LiveResolveOptions = {}): Promise<LiveResolution> {
    for (const source of this.sources) {
      if (source.match(new URL(ref.url))?.kind === ref.kind) return source.resolve(ref, options);
    }
    throw new SourceError("unsupported", `${ref.url} is no live stream this server reads.`);
  }
}
