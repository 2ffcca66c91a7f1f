import type { PlatformSource, SourceRef } from "./platform-source.ts";

/** An input matched to the source that reads it. */
export interface SourceMatch {
  source: PlatformSource;
  ref: SourceRef;
}

/**
 * The platform sources of a server, asked in order: the first that claims an input reads it.
 * Adding a platform is a source and one entry here.
 */
export class SourceRegistry {
  constructor(private readonly members: readonly PlatformSource[]) {}

  /** The source that claims the input, offline; null when none does. */
  match(input: string): SourceMatch | null {
    for (const source of this.members) {
      const ref = source.match(input);
      if (ref) return { source, ref };
    }
    return null;
  }

  /** The source that serves a stored reference's platform; null when none does any more. */
  sourceOf(platform: string): PlatformSource | null {
    return this.members.find((source) => source.serves(platform)) ?? null;
  }
}
