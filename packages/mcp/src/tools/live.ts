import type { LiveSession } from "@verbatim/sdk";
import { contractProperties, contractProperty } from "../contract-schemas.ts";
import { inputSchemaOf, outputSchemaOf, readOnlyOpenWorld, type Tool, usage } from "./tool.ts";

const liveSessionFields = contractProperties("LiveSession", [
  "id",
  "status",
  "end_reason",
  "source",
  "audio_seconds",
  "credits_spent",
]);

/** The fields of a session every live tool's result carries, as `liveSessionFields` describes them. */
function sessionFields({ id, status, end_reason, source, audio_seconds, credits_spent }: LiveSession) {
  return { id, status, end_reason, source, audio_seconds, credits_spent };
}

/** The session's state as a line a model reads: where it stands, and what it cost. */
function liveSummary(session: LiveSession): string {
  const ended = session.end_reason === null ? "" : ` (${session.end_reason})`;
  return `Live session ${session.id} is ${session.status}${ended}: ${session.audio_seconds} s of audio, ${session.credits_spent} credits so far.`;
}

export const startLiveSession: Tool = {
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
        ...sessionFields(data),
        usage: spent,
      },
    };
  },
};

export const readLiveSession: Tool = {
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
        ...sessionFields(data),
        text,
        next_after: next,
      },
    };
  },
};

export const stopLiveSession: Tool = {
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
      structuredContent: sessionFields(data),
    };
  },
};
