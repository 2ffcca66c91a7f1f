/**
 * What each billed outcome costs, in one place (docs/decisions.md, rules 8 and 11).
 * Failures, 429s, polls, replays and rejected batch items cost nothing and never reach it.
 */
export const pricing = {
  /** A caption transcript: 1 credit. */
  captions: (): number => 1,

  /** Speech recognition: 1 credit per started minute of audio, at least 1, charged on delivery. */
  speechRecognition: (durationSeconds: number): number => Math.max(1, Math.ceil(durationSeconds / 60)),

  /** A list page: 1 credit, an empty page free; any request with `since_video_id` 1 credit. */
  listPage: (rows: number, withSinceVideoId: boolean): number => (withSinceVideoId || rows > 0 ? 1 : 0),

  /** An item's metadata (`POST /videos/metadata`): 1 credit, as a list page. */
  metadata: (): number => 1,

  /**
   * What a billed request must be able to pay before any work runs: 1 credit. An empty list
   * page is still free when it happens, but almost every page has rows, and refusing up front
   * is better than an upstream fetch the account cannot pay for.
   */
  minimum: (): number => 1,
} as const;
