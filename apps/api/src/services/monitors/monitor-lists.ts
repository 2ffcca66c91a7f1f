import type { Schema } from "@verbatim/contract";
import { ApiError } from "../../errors.ts";
import type { ListingRegistry } from "../../sources/listing-registry.ts";
import type { Listing, MonitorPlatform } from "../../sources/listing-source.ts";
import { toApiError } from "../failures/index.ts";
import { fetchPage, listingOf } from "../lists/index.ts";
import type { MonitorRow } from "./monitor-events.ts";

export type VideoRow = Schema<"VideoRow">;
export type ChannelTab = NonNullable<Schema<"MonitorOptions">["tab"]>;

/** Items a monitor remembers as seen: enough that deleted or re-ordered newest items never make old ones look new. */
export const seenVideoLimit = 200;

/** Upstream pages one check reads looking for the newest item it has seen (about 90 YouTube videos). */
const maxCheckPages = 3;

/** What a monitor watches, as the monitor answers say it. */
export interface WatchedList {
  platform: MonitorPlatform;
  /** The monitor's `options`: the tab, for a list that takes one. */
  options: Schema<"MonitorOptions">;
}

/** What a monitor is created or changed to watch. */
export interface MonitorTarget {
  target: string;
  /** Sent by the client: refused for a list that takes no tab. */
  tab?: ChannelTab;
}

/**
 * Reads monitored lists through the listing registry, newest first: the baseline a monitor
 * starts from, and what is new since. A monitor stores its target as the client gave it (and,
 * for a list with tabs, its tab); the registry matches it again offline at each use, so the
 * monitor never stores, nor this service asks, which platform it is on.
 */
export class MonitorLists {
  constructor(private readonly registry: ListingRegistry) {}

  /** The list a new or changed monitor watches; the refusals `POST /transcripts/channel` answers. */
  listingOf(request: MonitorTarget): Listing {
    return listingOf(this.registry, {
      kind: "channel",
      channel: request.target,
      ...(request.tab === undefined ? {} : { tab: request.tab }),
    });
  }

  /** The list a monitor watches, in the newest order; a list that takes no tab ignores the stored one. */
  watched(monitor: Pick<MonitorRow, "target" | "tab">): Listing {
    const match = this.registry.match({
      kind: "channel",
      channel: monitor.target,
      tab: monitor.tab as ChannelTab,
      sort: "newest",
    });
    if ("listing" in match) return match.listing;
    if ("refusal" in match) throw toApiError(match.refusal);
    throw new ApiError("unsupported_platform", `This server no longer lists "${monitor.target}".`);
  }

  /** The platform and options a monitor's answers show. */
  describe(monitor: Pick<MonitorRow, "target" | "tab">): WatchedList {
    const listing = this.watched(monitor);
    return {
      platform: listing.monitorPlatform,
      options: listing.options.includes("tab") ? { tab: monitor.tab as ChannelTab } : {},
    };
  }

  /** The list's newest item ids: a monitor's baseline, all of them seen. */
  async newestIds(listing: Listing, accountId: string): Promise<string[]> {
    const page = await fetchPage(listing, null, { accountId });
    return page.rows.flatMap((row) => ("videoId" in row ? [row.videoId] : []));
  }

  /** The list's items newer than the newest one the monitor has seen, newest first. */
  async listNew(monitor: MonitorRow): Promise<VideoRow[]> {
    const listing = this.watched(monitor);
    const options = { accountId: monitor.accountId };
    const seen = new Set(monitor.seenVideoIds);
    const fresh: VideoRow[] = [];
    let page = await fetchPage(listing, null, options);
    for (let read = 1; ; read++) {
      for (const row of page.rows) {
        if (!("videoId" in row)) continue;
        if (seen.has(row.videoId)) return fresh;
        fresh.push(row);
      }
      // With nothing seen (the list was empty at the baseline), the newest page is what is new.
      if (page.continuation === null || seen.size === 0 || read === maxCheckPages) return fresh;
      page = await fetchPage(listing, page.continuation, options);
    }
  }
}
