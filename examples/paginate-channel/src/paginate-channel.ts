import type { Verbatim } from "@verbatim/sdk";

export interface ChannelOptions {
  /** An `@handle`, a channel URL or a `UC...` id. */
  channel: string;
  /** Rows per request, 1 to 50; each request costs 1 credit. Default: 50. */
  pageSize?: number;
  print: (line: string) => void;
}

/**
 * Prints the channel's videos, newest first, up to `max`. The iterator asks for the next page
 * only when the loop reaches it, and `break` stops it: no page past `max` is fetched or charged.
 * Answers how many videos were printed.
 */
export async function printChannelVideos(
  verbatim: Verbatim,
  { channel, pageSize = 50, max = 100, print }: ChannelOptions & { max?: number },
): Promise<number> {
  let printed = 0;
  if (max <= 0) return printed;
  for await (const row of verbatim.transcripts.channelVideos({ channel, limit: pageSize })) {
    // A channel lists videos only; channel and playlist rows come from searches.
    if (!("videoId" in row)) continue;
    printed += 1;
    print(`${String(printed).padStart(4)}  ${row.videoId}  ${row.title}`);
    if (printed >= max) break;
  }
  return printed;
}

/**
 * Prints the channel page by page, up to `maxPages`: what each page held and cost. Each page's
 * `next_cursor` asks for the next one; a program that stops can save it and resume there later
 * (cursors stay valid for a day). Answers how many pages were read.
 */
export async function printChannelPages(
  verbatim: Verbatim,
  { channel, pageSize = 50, maxPages = 10, print }: ChannelOptions & { maxPages?: number },
): Promise<number> {
  let pages = 0;
  let cursor: string | undefined;
  while (pages < maxPages) {
    const { data, usage } = await verbatim.transcripts.channel({ channel, limit: pageSize, cursor });
    pages += 1;
    const next = data.next_cursor === null ? "the last page" : "more to come";
    print(
      `page ${pages}: ${data.videos.length} videos, ${usage.credits_spent} credit spent, balance ${usage.balance ?? "unlimited"}, ${next}`,
    );
    if (data.next_cursor === null) break;
    cursor = data.next_cursor;
  }
  return pages;
}
