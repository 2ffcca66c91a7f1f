import type { Verbatim } from "@verbatim/sdk";

export interface EpisodeOptions {
  /** A podcast's RSS or Atom feed, an episode page, or a media file URL. */
  source: string;
  /** For a feed: the episode's guid or enclosure URL. Default: the newest episode. */
  episode?: string;
  print: (line: string) => void;
  /** The first wait between polls, in milliseconds. Default: the SDK's, 1 s growing to 10 s. */
  pollInterval?: number;
}

/**
 * Transcribes an episode and answers its text. A publisher transcript or short audio answers at
 * once; longer audio answers 202 with a speech recognition job, which this polls with
 * `waitForJob`, printing its progress after every poll. The job is charged when it completes.
 */
export async function transcribeEpisode(
  verbatim: Verbatim,
  { source, episode, print, pollInterval }: EpisodeOptions,
): Promise<string> {
  // `timestamps: false` asks an answer given at once for its text rather than its segments.
  const answer = await verbatim.transcripts.video({
    video: source,
    timestamps: false,
    ...(episode === undefined ? {} : { episode }),
  });
  if (!("job_id" in answer)) {
    const text = answer.data.text ?? "";
    print(`answered at once from ${answer.data.source}, ${credits(answer.usage.credits_spent)} spent`);
    print(text);
    return text;
  }

  print(`job ${answer.job_id} is transcribing ${answer.data.video_id}`);
  const done = await verbatim.transcripts.waitForJob(answer, {
    ...(pollInterval === undefined ? {} : { pollInterval }),
    onProgress: ({ status, progress }) =>
      print(progress === null ? status : `${status} ${Math.round(progress * 100)}%`),
  });
  const { title, duration, text } = done.data;
  print(`${title ?? done.data.video_id}: ${duration ?? "?"} s of audio, ${credits(done.usage.credits_spent)} spent`);
  print(text);
  return text;
}

function credits(count: number): string {
  return `${count} credit${count === 1 ? "" : "s"}`;
}
