import { type Segment, toText } from "@verbatim/sdk";
import { contractProperties, contractProperty, type JsonSchema } from "../contract-schemas.ts";
import { defaultMaxChars, pageOf } from "../text-page.ts";
import { wordsInPage } from "../word-page.ts";
import type { ToolResult } from "./tool.ts";

export const transcriptFields = contractProperties("FullTranscript", [
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

/** The word times of a page, with `words: true`: a result's text holds no times, so they come beside it. */
export const wordOutputProperties: Record<string, JsonSchema> = {
  word_timing: contractProperty("FullTranscript", "word_timing"),
  words: {
    ...contractProperty("Segment", "words"),
    description:
      "With `words: true`: the words of this page's text, in order, each with its start and duration in seconds.",
  },
};

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

export function transcriptResult(
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
