import { contractProperties } from "../contract-schemas.ts";
import { chargedLikeTheEndpoint, inputSchemaOf, outputSchemaOf, readOnlyOpenWorld, type Tool, usage } from "./tool.ts";

export const listLanguages: Tool = {
  name: "list_languages",
  operationId: "listTranscriptLanguages",
  title: "List a source's caption languages",
  description: [
    "List the caption tracks of a YouTube video, a TikTok, Instagram, X, Vimeo, Facebook, Dailymotion, Twitch or Loom link, or a podcast: each track's language, name, kind (`manual`, `auto` or `publisher`) and the languages get_transcript's `translate_to` can ask of it.",
    "A source without captions answers an empty list (get_transcript would transcribe its speech).",
    "Free: 0 credits, but each call is a request on the account's allowance.",
  ].join(" "),
  annotations: { title: "List a source's caption languages", ...readOnlyOpenWorld, idempotentHint: true },
  inputSchema: inputSchemaOf(contractProperties("LanguagesRequest", ["video"]), ["video"]),
  outputSchema: outputSchemaOf(
    { ...contractProperties("CaptionLanguages", ["video_id", "platform", "languages"]), usage },
    ["video_id", "platform", "languages", "usage"],
  ),
  async run(client, args) {
    const { data, usage: spent } = await client.transcripts.languages({ video: args.video as string });
    const lines = data.languages.map((track) => {
      const name = track.name === null ? "" : ` "${track.name}"`;
      const targets = track.translation_targets.map((target) => target.language).join(", ");
      return `- ${track.language}${name} (${track.kind})${targets ? `, translates into ${targets}` : ""}`;
    });
    const heading = `${data.languages.length} caption tracks of ${data.video_id} (${data.platform})`;
    return {
      content: [{ type: "text", text: lines.length > 0 ? `${heading}:\n${lines.join("\n")}` : `${heading}.` }],
      structuredContent: { video_id: data.video_id, platform: data.platform, languages: data.languages, usage: spent },
    };
  },
};

/** The fields of `VideoMetadata` a get_metadata result carries: all but the constant `kind`. */
export const metadataFields = [
  "platform",
  "video_id",
  "url",
  "title",
  "description",
  "channel",
  "duration",
  "published_at",
  "language",
  "tags",
  "chapters",
  "thumbnails",
  "stats",
  "live_status",
  "captions",
  "podcast",
] as const;

export const getMetadata: Tool = {
  name: "get_metadata",
  operationId: "getVideoMetadata",
  title: "Get an item's metadata",
  description: [
    "Read what a source says about a video, post, podcast episode or media file, without its words: title, description, channel, duration, publication date, language, tags, chapters (each with its start and end in seconds), thumbnails, view, like and comment counts, live status and caption tracks.",
    "Takes anything get_transcript takes. Costs 1 credit, nothing when it fails.",
    chargedLikeTheEndpoint,
  ].join(" "),
  annotations: { title: "Get an item's metadata", ...readOnlyOpenWorld, idempotentHint: true },
  inputSchema: inputSchemaOf(contractProperties("MetadataRequest", ["video"]), ["video"]),
  outputSchema: outputSchemaOf({ ...contractProperties("VideoMetadata", metadataFields), usage }, [
    ...metadataFields.filter((field) => field !== "podcast"),
    "usage",
  ]),
  async run(client, args) {
    const { data, usage: spent } = await client.videos.metadata({ video: args.video as string });
    const { kind: _kind, ...fields } = data;
    const facts = [
      data.channel.name === null ? null : `by ${data.channel.name}`,
      data.published_at === null ? null : `published ${data.published_at.slice(0, 10)}`,
      data.duration === null ? null : `${Math.round(data.duration)} s`,
    ].filter((fact) => fact !== null);
    const chapters = data.chapters.map((chapter) => `- ${chapter.start} s: ${chapter.title}`);
    const text = [
      `${data.title ?? data.video_id} (${data.platform})${facts.length > 0 ? `, ${facts.join(", ")}` : ""}.`,
      ...(chapters.length > 0 ? ["Chapters:", ...chapters] : []),
      ...(data.description ? ["", data.description] : []),
    ].join("\n");
    return { content: [{ type: "text", text }], structuredContent: { ...fields, usage: spent } };
  },
};
