import type { OperationId } from "@verbatim/contract";
import type { ListRow, SearchRequest, Verbatim } from "@verbatim/sdk";
import { contractProperties } from "../contract-schemas.ts";
import { chargedLikeTheEndpoint, inputSchemaOf, outputSchemaOf, readOnlyOpenWorld, type Tool, usage } from "./tool.ts";

const listOutputSchema = outputSchemaOf({ ...contractProperties("VideoPage", ["videos", "next_cursor"]), usage }, [
  "videos",
  "next_cursor",
  "usage",
]);

function listTool(options: {
  name: string;
  operationId: OperationId;
  title: string;
  description: string;
  requestSchema: string;
  inputs: readonly string[];
  required: string;
  list: (client: Verbatim, args: Record<string, unknown>) => ReturnType<Verbatim["transcripts"]["search"]>;
}): Tool {
  return {
    name: options.name,
    operationId: options.operationId,
    title: options.title,
    description: options.description,
    annotations: { title: options.title, ...readOnlyOpenWorld },
    inputSchema: inputSchemaOf(contractProperties(options.requestSchema, options.inputs), [options.required]),
    outputSchema: listOutputSchema,
    async run(client, args) {
      const page = await options.list(client, args);
      const lines = page.data.videos.map(rowLine);
      const more = page.data.next_cursor ? `\nMore: call again with cursor "${page.data.next_cursor}".` : "";
      return {
        content: [{ type: "text", text: `${lines.length} rows.\n${lines.join("\n")}${more}` }],
        structuredContent: { videos: page.data.videos, next_cursor: page.data.next_cursor, usage: page.usage },
      };
    },
  };
}

export const searchVideos = listTool({
  name: "search_videos",
  operationId: "searchVideos",
  title: "Search videos",
  description: [
    "Search videos by keywords, one page at a time: pass `next_cursor` back as `cursor` for the next page.",
    "`platform` is `youtube` (the default), `apple` (Apple Podcasts episode links, or shows with type channel) or `rss` (episodes' audio files, or shows' feed URLs), both from Apple's podcast directory, or `spotify` (Spotify links) where the server has Spotify's Web API credentials; TikTok and Instagram have no public search to read: each answers `unsupported_platform`, as `spotify` does elsewhere.",
    `Each row's url can be passed to get_transcript as is. ${chargedLikeTheEndpoint}`,
  ].join(" "),
  requestSchema: "SearchRequest",
  inputs: ["query", "platform", "limit", "cursor"],
  required: "query",
  list: (client, args) =>
    client.transcripts.search(
      args as { query: string; platform?: SearchRequest["platform"]; limit?: number; cursor?: string },
    ),
});

export const listChannelVideos = listTool({
  name: "list_channel_videos",
  operationId: "fetchChannelVideos",
  title: "List a channel's, profile's or feed's items",
  description: [
    "List a creator's or show's items, newest first, one page at a time: pass `next_cursor` back as `cursor` for the next page.",
    "`channel` is a YouTube channel (`@handle`, UC... id or channel URL), a TikTok profile URL (https://www.tiktok.com/@user), an Instagram profile URL (Instagram shows profiles to signed-in accounts only, so it answers `private`), an Apple Podcasts or Spotify show link (read from its public feed), or an RSS or Atom feed URL, or a podcast page that links to one.",
    "`platform` in the result says where the rows came from.",
    `Each row's url can be passed to get_transcript as is. ${chargedLikeTheEndpoint}`,
  ].join(" "),
  requestSchema: "ChannelRequest",
  inputs: ["channel", "limit", "cursor"],
  required: "channel",
  list: (client, args) => client.transcripts.channel(args as { channel: string; limit?: number; cursor?: string }),
});

export const listPlaylistVideos = listTool({
  name: "list_playlist_videos",
  operationId: "fetchPlaylistVideos",
  title: "List a playlist's videos",
  description: `List a YouTube playlist's videos in order, one page at a time: pass \`next_cursor\` back as \`cursor\` for the next page. Each row's url can be passed to get_transcript as is. ${chargedLikeTheEndpoint}`,
  requestSchema: "PlaylistRequest",
  inputs: ["playlist", "limit", "cursor"],
  required: "playlist",
  list: (client, args) => client.transcripts.playlist(args as { playlist: string; limit?: number; cursor?: string }),
});

function rowLine(row: ListRow): string {
  if ("videoId" in row) {
    const duration = row.duration === null ? "" : `, ${Math.round(row.duration)} s`;
    return `- ${row.title} (${row.channel ?? "unknown channel"}${duration}): ${row.url}`;
  }
  return `- ${"title" in row ? row.title : ""}: ${row.url}`;
}
