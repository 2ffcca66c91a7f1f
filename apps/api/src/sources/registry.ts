import type { PlatformSource, SourceRef } from "./platform-source.ts";
import { SourceError } from "./source-error.ts";

/** An input matched to the source that reads it. */
export interface SourceMatch {
  source: PlatformSource;
  ref: SourceRef;
}

/**
 * The platform sources of a server, asked in order: the first that claims an input reads it, as
 * yt-dlp asks its extractors. Services ask this registry which source an input names and never
 * which platform it is on. Adding a platform is a source (a folder, or a row of a family's table
 * such as `ytdlp/ytdlp-platforms.ts`) and its line in `createSourceRegistry` (`index.ts`); the
 * catch-all web comes last.
 */
export class SourceRegistry {
  constructor(readonly members: readonly PlatformSource[]) {}

  /**
   * The source that claims the input, offline; a `SourceError` when one claims it but reads no
   * item there, or when none claims it: `unsupported` for an address, `invalid_input` for
   * anything else, saying what this server reads.
   */
  match(input: string): SourceMatch | SourceError {
    for (const source of this.members) {
      const ref = source.match(input);
      if (ref instanceof SourceError) return ref;
      if (ref) return { source, ref };
    }
    const host = hostOf(input);
    if (host) {
      const labels = this.members.map((source) => source.label);
      return new SourceError(
        "unsupported",
        `${host} is not ${labels.length === 0 ? "a platform this server reads" : labels.join(" or ")}, and this server transcribes no other sources.`,
      );
    }
    const ids = this.members.flatMap((source) => (source.bareIds === null ? [] : [source.bareIds]));
    const [only] = ids;
    return new SourceError(
      "invalid_input",
      ids.length === 0
        ? `"${input}" is not a URL.`
        : ids.length === 1
          ? `"${input}" is neither ${only} nor a URL.`
          : `"${input}" is none of ${ids.join(", ")} or a URL.`,
    );
  }

  /** The source that serves a stored reference's platform; null when none does any more. */
  sourceOf(platform: string): PlatformSource | null {
    return this.members.find((source) => source.serves(platform)) ?? null;
  }

  /**
   * An address that opens an item of `platform` `seconds` in, by the source that serves the
   * platform; a media fragment (W3C Media Fragments) where none does any more.
   */
  linkAt(url: string, platform: string, seconds: number): string {
    const source = this.sourceOf(platform);
    return source ? source.linkAt(url, seconds) : `${url.split("#")[0]}#t=${Math.floor(seconds)}`;
  }
}

/** The host of an http(s) address, written with or without its scheme; null for anything else. */
function hostOf(input: string): string | null {
  const value = input.trim();
  if (/\s/.test(value)) return null;
  try {
    const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `https://${value}`);
    return (url.protocol === "https:" || url.protocol === "http:") && url.hostname.includes(".") ? url.hostname : null;
  } catch {
    return null;
  }
}
