import type { Schema } from "@verbatim/contract";
import type { ListTarget, VideoListSource } from "../adapters/youtube/video-lists.ts";
import type { MonitorRow } from "./monitor-events.ts";
import type { ChannelTab } from "./monitor-views.ts";
import { toApiError } from "./video-transcripts.ts";

export type VideoRow = Schema<"VideoRow">;

/** Videos a monitor remembers as seen: enough that deleted or re-ordered newest videos never make old ones look new. */
export const seenVideoLimit = 200;

/** Upstream pages one check reads looking for the newest video it has seen (about 90 videos). */
const maxCheckPages = 3;

/** A monitored channel tab as the list source reads it, newest first. */
export function channelTarget(channel: string, tab: string): ListTarget & { kind: "channel" } {
  return { kind: "channel", channel, tab: tab as ChannelTab, sort: "newest" };
}

/** Reads monitored channel tabs upstream: the baseline a monitor starts from, and what is new since. */
export class MonitorTabs {
  constructor(private readonly lists: VideoListSource) {}

  /** The tab's newest video ids: a monitor's baseline, all of them seen. */
  async newestVideoIds(target: ListTarget): Promise<string[]> {
    try {
      const page = await this.lists.firstPage(target);
      return page.rows.flatMap((row) => ("videoId" in row ? [row.videoId] : []));
    } catch (error) {
      throw toApiError(error);
    }
  }

  /** The tab's videos newer than the newest one the monitor has seen, newest first. */
  async listNew(monitor: MonitorRow): Promise<VideoRow[]> {
    const target = channelTarget(monitor.target, monitor.tab);
    const seen = new Set(monitor.seenVideoIds);
    const fresh: VideoRow[] = [];
    let page = await this.lists.firstPage(target);
    for (let read = 1; ; read++) {
      for (const row of page.rows) {
        if (!("videoId" in row)) continue;
        if (seen.has(row.videoId)) return fresh;
        fresh.push(row);
      }
      // With nothing seen (the tab was empty at the baseline), the newest page is what is new.
      if (page.continuation === null || seen.size === 0 || read === maxCheckPages) return fresh;
      page = await this.lists.nextPage(target, page.continuation);
    }
  }
}
