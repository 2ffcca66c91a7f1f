import type { Innertube, IParsedResponse } from "youtubei.js";
import { YTNodes } from "youtubei.js";
import { parseChannelReference, parsePlaylistReference } from "./list-reference.ts";
import { type ListPageContext, readListPage } from "./list-rows.ts";
import { UpstreamError, VideoUnavailableError } from "./upstream-errors.ts";
import type { ListTarget, UpstreamListPage, VideoListSource } from "./video-lists.ts";

type ChannelTarget = Extract<ListTarget, { kind: "channel" }>;

/** The `params` of the tab endpoints on YouTube's channel pages (the Videos, Shorts and Live tabs). */
const tabParams: Record<ChannelTarget["tab"], string> = {
  videos: "EgZ2aWRlb3PyBgQKAjoA",
  shorts: "EgZzaG9ydHPyBgUKA5oBAA%3D%3D",
  live: "EgdzdHJlYW1z8gYECgJ6AA%3D%3D",
};

/** The `params` of a channel page's search tab (its `expandableTabRenderer`), sent with the `query`. */
const channelSearchParams = "EgZzZWFyY2jyBgQKAloA";

/** The chips above a channel tab that re-sort it; each is a browse continuation (the session asks for `hl=en`). */
const sortChipLabels: Record<Exclude<ChannelTarget["sort"], "newest">, string> = {
  popular: "Popular",
  oldest: "Oldest",
};

/** How many channels' names are remembered for their continuation pages, which do not repeat it. */
const channelNameCacheSize = 1_000;

/**
 * YouTube lists through youtubei.js: channel tabs and channel search (`browse`), playlists
 * (`browse` of `VL<id>`) and search (`search`), each page read by `readListPage` from
 * youtubei.js's parsed nodes. Continuations are plain `browse`/`search` calls with YouTube's
 * token, so any page can be fetched from the token alone.
 */
export class YoutubeiVideoListSource implements VideoListSource {
  /** Channel name by the `channel` input, learned from a first page; items of a channel's tabs lack it. */
  private readonly channelNames = new Map<string, string | null>();

  constructor(
    private readonly innertube: () => Promise<Innertube>,
    private readonly now: () => Date,
  ) {}

  async firstPage(target: ListTarget): Promise<UpstreamListPage> {
    switch (target.kind) {
      case "channel":
        return this.channelFirstPage(target);
      case "playlist":
        return this.playlistFirstPage(target.playlist);
      case "search":
        return this.searchFirstPage(target.query, target.type);
    }
  }

  async nextPage(target: ListTarget, continuation: string): Promise<UpstreamListPage> {
    const yt = await this.innertube();
    if (target.kind === "search") {
      const response = await execute(yt, "/search", { continuation });
      return readListPage(response, this.context(target.type, null));
    }
    const response = await execute(yt, "/browse", { continuation });
    const channelName = target.kind === "channel" ? await this.channelName(target) : null;
    return readListPage(response, this.context("video", channelName));
  }

  private async channelFirstPage(target: ChannelTarget): Promise<UpstreamListPage> {
    const { page, channelName } = await this.channelListResponse(target);
    return readListPage(page, this.context("video", channelName));
  }

  /** The first page of a channel list as YouTube answers it, and the channel's name from its header. */
  private async channelListResponse(
    target: ChannelTarget,
  ): Promise<{ page: IParsedResponse; channelName: string | null }> {
    const yt = await this.innertube();
    const browseId = await resolveChannelId(yt, target.channel);
    const request: Record<string, string> = target.query
      ? { browseId, params: channelSearchParams, query: target.query }
      : { browseId, params: tabParams[target.tab] };
    const tab = await browseChannel(yt, request);
    const channelName = tab.metadata?.item().as(YTNodes.ChannelMetadata).title ?? null;
    this.rememberChannelName(target.channel, channelName);
    if (target.query || target.sort === "newest") return { page: tab, channelName };
    const label = sortChipLabels[target.sort];
    const chip = [...(tab.contents_memo?.getType(YTNodes.ChipView, YTNodes.ChipCloudChip) ?? [])].find(
      (candidate) => candidate.text === label,
    );
    if (!chip?.endpoint) {
      // YouTube shows no sort chips on small tabs; serving the default order as "oldest" would be wrong.
      throw new UpstreamError(
        "unparseable",
        `The ${target.tab} tab of channel ${browseId} offers no "${label}" order.`,
      );
    }
    const token: unknown = chip.endpoint.payload?.token;
    if (typeof token !== "string") {
      throw new UpstreamError("unparseable", `The "${label}" chip of channel ${browseId} carries no continuation.`);
    }
    return { page: await execute(yt, "/browse", { continuation: token }), channelName };
  }

  private async playlistFirstPage(input: string): Promise<UpstreamListPage> {
    const reference = parsePlaylistReference(input);
    if (reference.kind !== "id") throw unrefusedInput(`"${input}" names no YouTube playlist`);
    const { playlistId } = reference;
    const yt = await this.innertube();
    const page = await execute(yt, "/browse", { browseId: `VL${playlistId}` });
    throwOnAlert(page, `Playlist ${playlistId}`);
    return readListPage(page, this.context("video", null));
  }

  private async searchFirstPage(query: string, type: "video" | "channel" | "playlist"): Promise<UpstreamListPage> {
    const yt = await this.innertube();
    const search = await mapFailures("/search", () => yt.search(query, { type }));
    return readListPage(search.page, this.context(type, null));
  }

  /** The name for a continuation page: remembered from the first page, or read again from it when this process never saw it. */
  private async channelName(target: ChannelTarget): Promise<string | null> {
    const known = this.channelNames.get(target.channel);
    if (known !== undefined) return known;
    return (await this.channelListResponse({ ...target, sort: "newest" })).channelName;
  }

  private rememberChannelName(channel: string, name: string | null): void {
    this.channelNames.delete(channel);
    this.channelNames.set(channel, name);
    // A Map iterates in insertion order, so the first key is the least recently stored.
    if (this.channelNames.size > channelNameCacheSize) {
      const oldest = this.channelNames.keys().next().value;
      if (oldest !== undefined) this.channelNames.delete(oldest);
    }
  }

  private context(rowKind: ListPageContext["rowKind"], channelName: string | null): ListPageContext {
    return { rowKind, channelName, now: this.now() };
  }
}

/** The `UC...` id of a channel input; handles and vanity addresses go through `navigation/resolve_url`. */
async function resolveChannelId(yt: Innertube, input: string): Promise<string> {
  const reference = parseChannelReference(input);
  if (reference.kind === "id") return reference.channelId;
  if (reference.kind !== "vanity") throw unrefusedInput(`"${input}" names no YouTube channel`);
  const endpoint = await mapFailures("/navigation/resolve_url", () => yt.resolveURL(reference.url), {
    notFound: `YouTube knows no channel at ${reference.url}.`,
  });
  const browseId: unknown = endpoint.payload?.browseId;
  if (typeof browseId !== "string" || !browseId.startsWith("UC")) {
    throw new VideoUnavailableError("unavailable", `${reference.url} is not a YouTube channel.`);
  }
  return browseId;
}

/**
 * The list service answers input that names no list with 422 before any upstream work; input
 * that gets here anyway is a bug of the caller, not a list YouTube lacks.
 */
function unrefusedInput(problem: string): Error {
  return new Error(`${problem}; the list service should have refused it.`);
}

/** A channel tab or channel search page; a removed, terminated or age-gated channel fails here. */
async function browseChannel(yt: Innertube, request: Record<string, string>): Promise<IParsedResponse> {
  const channel = `Channel ${request.browseId}`;
  const page = await execute(yt, "/browse", request, { notFound: `${channel} does not exist.` });
  throwOnAlert(page, channel);
  if (page.contents_memo?.has(YTNodes.ChannelAgeGate.type)) {
    throw new VideoUnavailableError("age_restricted", `${channel} is age-restricted: YouTube wants a signed-in adult.`);
  }
  return page;
}

/** YouTube answers a missing, removed or private channel or playlist with status 200 and an ERROR alert. */
function throwOnAlert(page: IParsedResponse, subject: string): void {
  const alert = page.alerts?.find((candidate) => candidate.alert_type === "ERROR");
  if (!alert) return;
  const text = alert.text.toString();
  throw new VideoUnavailableError(/private/i.test(text) ? "private" : "unavailable", `${subject}: ${text}`);
}

interface FailureMessages {
  /** Set where YouTube's 400 or 404 means the thing asked for does not exist. */
  notFound?: string;
}

/** One parsed InnerTube call. */
function execute(
  yt: Innertube,
  endpoint: string,
  args: Record<string, string>,
  messages: FailureMessages = {},
): Promise<IParsedResponse> {
  return mapFailures(endpoint, () => yt.actions.execute(endpoint, { ...args, parse: true }), messages);
}

/**
 * Transport failures arrive from the upstream fetch as `UpstreamError` and pass through;
 * a 400/404 where the caller knows it means "no such thing" becomes `VideoUnavailableError`;
 * an answer youtubei.js cannot read is `unparseable`.
 */
async function mapFailures<T>(endpoint: string, call: () => Promise<T>, messages: FailureMessages = {}): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof UpstreamError) {
      if (messages.notFound && (error.status === 404 || error.status === 400)) {
        throw new VideoUnavailableError("unavailable", messages.notFound);
      }
      throw error;
    }
    if (error instanceof VideoUnavailableError) throw error;
    throw new UpstreamError("unparseable", `YouTube's ${endpoint} answer could not be read.`, undefined, {
      cause: error,
    });
  }
}
