import { errorTable, type OperationId } from "@verbatim/contract";
import {
  ApiError,
  ConnectionError,
  type ListRow,
  type SearchRequest,
  type Segment,
  toText,
  type Verbatim,
} from "@verbatim/sdk";
import { contractProperties, contractProperty, contractSchema, type JsonSchema } from "./contract-schemas.ts";
import { defaultMaxChars, pageOf, pagingInputProperties, pagingOutputProperties } from "./text-page.ts";
import { wordsInPage } from "./word-page.ts";

/** What MCP clients may assume about a tool (MCP `ToolAnnotations`). */
export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint?: boolean;
  openWorldHint: boolean;
}

/** A tool as `tools/list` and the server card describe it. */
export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  annotations: ToolAnnotations;
}

/** What a tool call answers: a readable text and the same result as structured content. */
export interface ToolResult {
  [field: string]: unknown;
  content: Array<{ type: "text"; text: string }>;
  structuredContent: Record<string, unknown>;
  isError?: boolean;
}

/** A tool and the call that runs it through the SDK. Arguments reach `run` already validated against `inputSchema`. */
export interface Tool extends ToolDefinition {
  /** The API operation `run` calls, once: a server meters the tool call as that operation. */
  operationId: OperationId;
  run(client: Verbatim, args: Record<string, unknown>): Promise<ToolResult>;
}

/** An error result's `error`: the API's error block, and when to retry. */
const errorSchema: JsonSchema = {
  type: "object",
  description: "Why the call failed, as the API answered it. Present only on results with `isError`.",
  required: ["code", "message"],
  properties: {
    code: { type: "string", description: contractProperty("UnknownError", "code").description },
    number: { type: "integer", description: contractProperty("UnknownError", "number").description },
    message: contractProperty("UnknownError", "message"),
    docs: contractProperty("UnknownError", "docs"),
    retry_with: {
      anyOf: [
        contractSchema("RetryWithMode"),
        contractSchema("RetryWithEndpoint"),
        contractSchema("RetryWithTranslation"),
      ],
      description:
        "What to change for the call to succeed: another `mode`, another endpoint, or a `translate_to` among those listed.",
    },
    // Retry-After is a header in the API; a tool result has no headers.
    retry_after: { type: "integer", minimum: 0, description: "Seconds to wait before calling again." },
    issues: contractProperty("InvalidRequestError", "issues"),
    truncated: contractProperty("InvalidRequestError", "truncated"),
  },
};

/** The most argument problems an error result lists, as the contract caps an `invalid_request`'s `issues`. */
const maxIssuesListed = contractProperty("InvalidRequestError", "issues").maxItems as number;

function inputSchemaOf(properties: Record<string, JsonSchema>, required: readonly string[]): JsonSchema {
  return {
    type: "object",
    properties,
    ...(required.length > 0 ? { required: [...required] } : {}),
    additionalProperties: false,
  };
}

/** A result's schema: the success fields, or `error` on an `isError` result. */
function outputSchemaOf(properties: Record<string, JsonSchema>, required: readonly string[]): JsonSchema {
  return {
    type: "object",
    properties: { ...properties, error: errorSchema },
    anyOf: [{ required: [...required] }, { required: ["error"] }],
  };
}

const transcriptFields = contractProperties("FullTranscript", [
  "video_id",
  "url",
  "platform",
  "title",
  "channel",
  "duration",
  "language",
  "source",
  "source_language",
]);

const usage = contractProperty("TranscriptEnvelope", "usage");

/** The word times of a page, with `words: true`: a result's text holds no times, so they come beside it. */
const wordOutputProperties: Record<string, JsonSchema> = {
  word_timing: contractProperty("FullTranscript", "word_timing"),
  words: {
    ...contractProperty("Segment", "words"),
    description:
      "With `words: true`: the words of this page's text, in order, each with its start and duration in seconds.",
  },
};

const listOutputSchema = outputSchemaOf({ ...contractProperties("VideoPage", ["videos", "next_cursor"]), usage }, [
  "videos",
  "next_cursor",
  "usage",
]);

const chargedLikeTheEndpoint =
  "Each call is a request on the account's allowance and is charged exactly as the REST endpoint charges it.";

const readOnlyOpenWorld = { readOnlyHint: true, destructiveHint: false, openWorldHint: true } as const;

const getTranscript: Tool = {
  name: "get_transcript",
  operationId: "fetchVideoTranscript",
  title: "Get a transcript",
  description: [
    "Fetch the transcript of a YouTube, TikTok, Instagram, X, Vimeo, Facebook, Dailymotion, Twitch or Loom video, a podcast episode (an Apple Podcasts or Spotify episode link, an episode page, a feed or an enclosure), or a media file URL.",
    `The result is plain text without timestamps (\`timestamps: true\` gives one \`[mm:ss] \` line per segment), at most \`max_chars\` characters (default ${defaultMaxChars}).`,
    "A longer transcript comes back `truncated` with `next_offset` and `total_chars`: call get_transcript again with the same arguments and `offset: next_offset` to read on.",
    "When speech recognition runs as a job, the result has `status: processing` and a `job_id`: call get_job with it until the transcript is there.",
    "`translate_to` asks the platform's own translation of the captions (list_languages says which languages each track offers); `language` is then the translation's and `source_language` the original's.",
    "`words: true` adds `words`, the start and duration of each word of the page's text, and `word_timing`: `source` where the source timed them, `estimated` where they were spread over each segment; same price.",
    `${chargedLikeTheEndpoint} Repeating a call for the next page reads the stored transcript but is charged again like the endpoint.`,
  ].join(" "),
  annotations: { title: "Get a transcript", ...readOnlyOpenWorld, idempotentHint: true },
  inputSchema: inputSchemaOf(
    {
      ...contractProperties("TranscriptRequest", ["video", "mode", "language", "translate_to", "words"]),
      // The API's `timestamps` chooses segments or joined text; here it chooses the text's form.
      timestamps: {
        type: "boolean",
        default: false,
        description: "Prefix each segment's line with its start time as `[mm:ss] `. Default false: one plain text.",
      },
      ...pagingInputProperties,
    },
    ["video"],
  ),
  outputSchema: outputSchemaOf(
    {
      // The API tells a finished transcript (200) from a job (202) by status code; a tool result has none.
      status: {
        type: "string",
        enum: ["completed", "processing"],
        description:
          "`completed`: the transcript is in `text`. `processing`: speech recognition continues as job `job_id`.",
      },
      job_id: contractProperty("JobAccepted", "job_id"),
      ...transcriptFields,
      ...pagingOutputProperties,
      ...wordOutputProperties,
      usage,
    },
    ["status", "usage"],
  ),
  async run(client, args) {
    const { video, mode, language, translate_to, words } = args as {
      video: string;
      mode?: "auto" | "captions" | "audio";
      language?: string;
      translate_to?: string;
      words?: boolean;
    };
    const answer = await client.transcripts.video({
      video,
      ...(mode === undefined ? {} : { mode }),
      ...(language === undefined ? {} : { language }),
      ...(translate_to === undefined ? {} : { translate_to }),
      ...(words === true ? { words: true } : {}),
    });
    if ("job_id" in answer) return jobStarted(answer.job_id, answer.usage);
    return transcriptResult({ status: "completed" }, answer.data, answer.usage, args);
  },
};

const listLanguages: Tool = {
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
const metadataFields = [
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

const getMetadata: Tool = {
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

const getJob: Tool = {
  name: "get_job",
  operationId: "getTranscriptJob",
  title: "Get a speech recognition job",
  description: [
    "Read a speech recognition job that get_transcript started. While it runs, the result says `processing` (with `progress` when known): call again in a few seconds.",
    "When it has completed, the result holds the transcript text, paged by `max_chars` and `offset` as get_transcript pages it, and with `words: true` each word's time. A failed job answers its error.",
    "Free: it counts on the polling allowance, not the request allowance.",
  ].join(" "),
  annotations: { title: "Get a speech recognition job", ...readOnlyOpenWorld, idempotentHint: true },
  inputSchema: inputSchemaOf(
    {
      job_id: contractProperty("JobCompleted", "job_id"),
      words: {
        ...contractProperty("TranscriptRequest", "words"),
        description:
          "Time each word of the finished transcript (`words` and `word_timing` in the result). Default false.",
      },
      ...pagingInputProperties,
    },
    ["job_id"],
  ),
  outputSchema: outputSchemaOf(
    {
      // A failed job answers as an error result, so only these two states are results.
      status: {
        type: "string",
        enum: ["processing", "completed"],
        description: "`processing`: call get_job again later. `completed`: the transcript is in `text`.",
      },
      job_id: contractProperty("JobCompleted", "job_id"),
      progress: contractProperty("JobProcessing", "progress"),
      ...transcriptFields,
      ...pagingOutputProperties,
      ...wordOutputProperties,
      usage,
    },
    ["status", "job_id"],
  ),
  async run(client, args) {
    const state = await client.transcripts.job(args.job_id as string, { words: args.words === true });
    if (state.status === "failed") {
      const { code, number, message, docs } = state.error;
      const retryWith = (state.error as { retry_with?: unknown }).retry_with;
      return errorResult({
        code,
        number,
        message,
        docs,
        ...(retryWith === undefined ? {} : { retry_with: retryWith }),
      });
    }
    if (state.status === "processing") {
      const progress = state.progress === undefined ? {} : { progress: state.progress };
      const done = state.progress === undefined ? "" : ` (${Math.round(state.progress * 100)}% done)`;
      return {
        content: [
          {
            type: "text",
            text: `Job ${state.job_id} is still processing${done}. Call get_job again in a few seconds.`,
          },
        ],
        structuredContent: { status: "processing", job_id: state.job_id, ...progress },
      };
    }
    return transcriptResult({ status: "completed", job_id: state.job_id }, state.data, state.usage, args);
  },
};

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

const searchVideos = listTool({
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

const listChannelVideos = listTool({
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

const listPlaylistVideos = listTool({
  name: "list_playlist_videos",
  operationId: "fetchPlaylistVideos",
  title: "List a playlist's videos",
  description: `List a YouTube playlist's videos in order, one page at a time: pass \`next_cursor\` back as \`cursor\` for the next page. Each row's url can be passed to get_transcript as is. ${chargedLikeTheEndpoint}`,
  requestSchema: "PlaylistRequest",
  inputs: ["playlist", "limit", "cursor"],
  required: "playlist",
  list: (client, args) => client.transcripts.playlist(args as { playlist: string; limit?: number; cursor?: string }),
});

const getCredits: Tool = {
  name: "get_credits",
  operationId: "me",
  title: "Check the credit balance",
  description:
    "The account's remaining credits, its plan and its request allowance. Free: it counts on the polling allowance, not the request allowance.",
  annotations: { title: "Check the credit balance", ...readOnlyOpenWorld, idempotentHint: true },
  inputSchema: inputSchemaOf({}, []),
  outputSchema: outputSchemaOf(contractProperties("Me", ["credits", "plan", "rate_limit"]), [
    "credits",
    "plan",
    "rate_limit",
  ]),
  async run(client) {
    const { data } = await client.me();
    const credits = data.credits === null ? "Unlimited credits" : `${data.credits} credits left`;
    return {
      content: [
        {
          type: "text",
          text: `${credits} on the ${data.plan} plan; ${data.rate_limit.remaining} of ${data.rate_limit.limit} requests left this minute.`,
        },
      ],
      structuredContent: { credits: data.credits, plan: data.plan, rate_limit: data.rate_limit },
    };
  },
};

const liveSessionFields = contractProperties("LiveSession", [
  "id",
  "status",
  "end_reason",
  "source",
  "audio_seconds",
  "credits_spent",
]);

/** The session's state as a line a model reads: where it stands, and what it cost. */
function liveSummary(session: {
  id: string;
  status: string;
  end_reason: string | null;
  audio_seconds: number;
  credits_spent: number;
}): string {
  const ended = session.end_reason === null ? "" : ` (${session.end_reason})`;
  return `Live session ${session.id} is ${session.status}${ended}: ${session.audio_seconds} s of audio, ${session.credits_spent} credits so far.`;
}

const startLiveSession: Tool = {
  name: "start_live_session",
  operationId: "createLiveSession",
  title: "Start transcribing a live stream",
  description: [
    "Start transcribing a live stream as it plays: a YouTube live video, a Twitch channel, an HLS playlist (.m3u8) or an Icecast radio stream.",
    "It answers the session's id at once; call read_live_session with it to read the words heard so far, again and again while the session is live, and stop_live_session to end it.",
    "Billed 1 credit per started minute of audio, charged as the minutes pass, until the stream ends, `max_minutes` pass, the balance runs out or the session is stopped.",
  ].join(" "),
  annotations: {
    title: "Start transcribing a live stream",
    readOnlyHint: false,
    destructiveHint: false,
    openWorldHint: true,
  },
  inputSchema: inputSchemaOf(contractProperties("LiveCreate", ["url", "max_minutes", "language"]), ["url"]),
  outputSchema: outputSchemaOf({ ...liveSessionFields, usage }, ["id", "status"]),
  async run(client, args) {
    const { data, usage: spent } = await client.live.create(
      args as { url: string; max_minutes?: number; language?: string },
    );
    return {
      content: [
        {
          type: "text",
          text: `${liveSummary(data)} Call read_live_session with session_id "${data.id}" to read its words.`,
        },
      ],
      structuredContent: {
        id: data.id,
        status: data.status,
        end_reason: data.end_reason,
        source: data.source,
        audio_seconds: data.audio_seconds,
        credits_spent: data.credits_spent,
        usage: spent,
      },
    };
  },
};

const readLiveSession: Tool = {
  name: "read_live_session",
  operationId: "getLiveSession",
  title: "Read a live session's words",
  description: [
    "Read the final segments a live session has transcribed after `after` (a segment's `seq`; 0, the default, reads from the start), at most 500 a call.",
    "Pass `next_after` back as `after` to read only what came since. While `status` is `live` or `waiting`, more comes: call again in a few seconds.",
    "Free: it counts on the polling allowance, not the request allowance.",
  ].join(" "),
  annotations: { title: "Read a live session's words", ...readOnlyOpenWorld, idempotentHint: true },
  inputSchema: inputSchemaOf(
    {
      session_id: contractProperty("LiveSession", "id"),
      after: {
        type: "integer",
        minimum: 0,
        description:
          "Only segments whose `seq` is greater than this: the `next_after` of the previous call. Default 0.",
      },
    },
    ["session_id"],
  ),
  outputSchema: outputSchemaOf(
    {
      ...liveSessionFields,
      text: {
        type: "string",
        description: "The segments' words, one segment a line, each after its start time in seconds.",
      },
      next_after: contractProperty("LiveSessionDetail", "next_after"),
    },
    ["id", "status", "text", "next_after"],
  ),
  async run(client, args) {
    const after = typeof args.after === "number" ? args.after : 0;
    const { data } = await client.live.get(args.session_id as string, { after, limit: 500 });
    const text = data.segments.map((segment) => `[${segment.start.toFixed(1)} s] ${segment.text}`).join("\n");
    const next = data.next_after ?? after;
    const more =
      data.status === "live" || data.status === "waiting" ? ` Call again with after ${next} for what comes next.` : "";
    return {
      content: [{ type: "text", text: `${liveSummary(data)}${more}\n${text}` }],
      structuredContent: {
        id: data.id,
        status: data.status,
        end_reason: data.end_reason,
        source: data.source,
        audio_seconds: data.audio_seconds,
        credits_spent: data.credits_spent,
        text,
        next_after: next,
      },
    };
  },
};

const stopLiveSession: Tool = {
  name: "stop_live_session",
  operationId: "stopLiveSession",
  title: "Stop a live session",
  description:
    "Stop a live session: what it transcribed is charged (1 credit per started minute) and goes to the library. A session already over answers as it is.",
  annotations: {
    title: "Stop a live session",
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: true,
  },
  inputSchema: inputSchemaOf({ session_id: contractProperty("LiveSession", "id") }, ["session_id"]),
  outputSchema: outputSchemaOf(liveSessionFields, ["id", "status"]),
  async run(client, args) {
    const { data } = await client.live.stop(args.session_id as string);
    return {
      content: [{ type: "text", text: liveSummary(data) }],
      structuredContent: {
        id: data.id,
        status: data.status,
        end_reason: data.end_reason,
        source: data.source,
        audio_seconds: data.audio_seconds,
        credits_spent: data.credits_spent,
      },
    };
  },
};

/** Every tool, in the order `tools/list` answers them. */
export const tools: readonly Tool[] = [
  getTranscript,
  listLanguages,
  getMetadata,
  searchVideos,
  listChannelVideos,
  listPlaylistVideos,
  getCredits,
  getJob,
  startLiveSession,
  readLiveSession,
  stopLiveSession,
];

/** The tools as `tools/list` and the server card describe them, without their calls. */
export const toolDefinitions: readonly ToolDefinition[] = tools.map(
  ({ name, title, description, inputSchema, outputSchema, annotations }) => ({
    name,
    title,
    description,
    inputSchema,
    outputSchema,
    annotations,
  }),
);

interface TranscriptFields {
  video_id: string;
  url: string | null;
  platform: string;
  title: string | null;
  channel: string | null;
  duration: number | null;
  language: string | null;
  source: string;
  source_language?: string;
  text?: string;
  segments?: Segment[];
  word_timing?: "source" | "estimated";
}

function transcriptResult(
  head: { status: "completed"; job_id?: string },
  transcript: TranscriptFields,
  usage: unknown,
  args: Record<string, unknown>,
): ToolResult {
  const whole = transcript.segments
    ? toText(transcript.segments, { timestamps: args.timestamps === true })
    : (transcript.text ?? "");
  const page = pageOf(
    whole,
    (args.offset as number | undefined) ?? 0,
    (args.max_chars as number | undefined) ?? defaultMaxChars,
  );
  const { video_id, url, platform, title, channel, duration, language, source, source_language, word_timing } =
    transcript;
  const timed =
    word_timing === undefined || !transcript.segments
      ? {}
      : { word_timing, words: wordsInPage(whole, transcript.segments, page) };
  const heading = `${title ?? video_id}${channel ? ` (${channel})` : ""}, ${url ?? video_id}`;
  const range = `characters ${page.offset} to ${page.offset + Array.from(page.text).length} of ${page.total_chars}`;
  const more = page.truncated ? `\n\n[Truncated: call again with offset ${page.next_offset} to read on.]` : "";
  return {
    content: [{ type: "text", text: `${heading}, ${range}:\n\n${page.text}${more}` }],
    structuredContent: {
      ...head,
      video_id,
      url,
      platform,
      title,
      channel,
      duration,
      language,
      source,
      ...(source_language === undefined ? {} : { source_language }),
      ...page,
      ...timed,
      usage,
    },
  };
}

function jobStarted(jobId: string, usage: unknown): ToolResult {
  return {
    content: [
      {
        type: "text",
        text: `Speech recognition continues as job ${jobId}. Call get_job with job_id "${jobId}" in a few seconds to get the transcript.`,
      },
    ],
    structuredContent: { status: "processing", job_id: jobId, usage },
  };
}

function rowLine(row: ListRow): string {
  if ("videoId" in row) {
    const duration = row.duration === null ? "" : `, ${Math.round(row.duration)} s`;
    return `- ${row.title} (${row.channel ?? "unknown channel"}${duration}): ${row.url}`;
  }
  return `- ${"title" in row ? row.title : ""}: ${row.url}`;
}

interface ErrorFields {
  code: string;
  number?: number;
  message: string;
  docs?: string;
  retry_with?: unknown;
  retry_after?: number;
  issues?: ArgumentIssue[];
  truncated?: true;
}

/** One problem of a tool's arguments: where, as a JSON pointer from `/arguments`, and what. */
export interface ArgumentIssue {
  path: string;
  message: string;
}

/** An error as a tool result: the model reads it and can act on it, where a protocol error would end the call. */
export function errorResult(error: ErrorFields): ToolResult {
  const retryWith = error.retry_with === undefined ? "" : ` Retry with ${JSON.stringify(error.retry_with)}.`;
  const retryAfter = error.retry_after === undefined ? "" : ` Retry after ${error.retry_after} seconds.`;
  const number = error.number === undefined ? "" : ` (${error.number})`;
  return {
    isError: true,
    content: [{ type: "text", text: `Error ${error.code}${number}: ${error.message}${retryWith}${retryAfter}` }],
    structuredContent: { error },
  };
}

/** The error result of a failed call, or a rethrow for failures that are not the API's nor the network's. */
export function failedCallResult(failure: unknown): ToolResult {
  if (failure instanceof ApiError) {
    return errorResult({
      code: failure.code,
      number: failure.number,
      message: failure.message,
      docs: failure.docs,
      ...(failure.retryWith === null ? {} : { retry_with: failure.retryWith }),
      ...(failure.retryAfter === null ? {} : { retry_after: failure.retryAfter }),
    });
  }
  if (failure instanceof ConnectionError) {
    return errorResult({
      code: "connection_failed",
      message: `The Verbatim API could not be reached: ${failure.message}`,
    });
  }
  throw failure;
}

/**
 * Arguments that break a tool's input schema, answered as the API answers a body that breaks its
 * schema: at most `maxIssuesListed` issues, with `truncated` when there were more, so that many
 * bad arguments cannot make an answer many times the size of the call.
 */
export function invalidArgumentsResult(issues: readonly ArgumentIssue[]): ToolResult {
  const listed = issues.slice(0, maxIssuesListed);
  const problems = listed.map((issue) => `${issue.path} ${issue.message}`).join("; ");
  const more =
    issues.length > listed.length ? ` The first ${listed.length} of ${issues.length} problems are listed.` : "";
  return errorResult({
    code: "invalid_request",
    number: errorTable.invalid_request.number,
    message: `Invalid arguments: ${problems}.${more}`,
    issues: listed,
    ...(more === "" ? {} : { truncated: true }),
  });
}
