import { writeFile } from "node:fs/promises";
import { ApiError, ConnectionError, JobTimeoutError, VerbatimError } from "../api-error.ts";
import type { Verbatim } from "../client.ts";
import { apiErrorFrom } from "../errors.ts";
import { toSrt, toVtt } from "../formats.ts";
import type {
  FinishedTranscriptResult,
  ListRow,
  TranscriptRequest,
  TranscriptResult,
} from "../resources/transcripts.ts";
import type { VideoMetadata } from "../resources/videos.ts";
import { printable, printableJson } from "./printable.ts";
import { type CliCommand, exitCodes, type OutputFormat } from "./program.ts";
import { type ProgressStream, progressDisplay } from "./progress.ts";

/**
 * Where a command writes: its result to `out`, progress and errors to `err`. What it writes there
 * holds no control character from the server's answers (`printable`, `printableJson`).
 */
export interface CliStreams {
  out: (text: string) => void;
  err: ProgressStream;
  /** Aborts a command that runs until it is stopped (`--live`): Ctrl-C. */
  interrupt?: AbortSignal;
}

/** An answer the command cannot print: the server left out what the request asked for. */
export class UnreadableAnswerError extends VerbatimError {
  override readonly name: string = "UnreadableAnswerError";
}

/** Runs a command against the server and prints its result. */
export async function runCommand(command: CliCommand, verbatim: Verbatim, streams: CliStreams): Promise<void> {
  switch (command.name) {
    case "transcript":
      return transcript(command, verbatim, streams);
    case "live":
      return live(command, verbatim, streams);
    case "languages":
      return languages(command, verbatim, streams);
    case "metadata": {
      const { data } = await verbatim.videos.metadata(command.link);
      return streams.out(command.json ? json(data) : printable(metadataLines(data)));
    }
    case "channel": {
      const request = { channel: command.channel, limit: Math.min(command.limit, 50), since_video_id: command.since };
      const rows = await verbatim.transcripts.channelVideos(request).toArray(command.limit);
      return streams.out(command.json ? json(rows) : printable(rows.map(rowLine).join("")));
    }
    case "search": {
      const request = {
        query: command.query,
        limit: Math.min(command.limit, 50),
        since_video_id: command.since,
        ...(command.platform === undefined ? {} : { platform: command.platform }),
      };
      const rows = await verbatim.transcripts.searchVideos(request).toArray(command.limit);
      return streams.out(command.json ? json(rows) : printable(rows.map(rowLine).join("")));
    }
  }
}

async function transcript(
  command: Extract<CliCommand, { name: "transcript" }>,
  verbatim: Verbatim,
  streams: CliStreams,
): Promise<void> {
  const request: TranscriptRequest = {
    video: command.link,
    // `json` prints the data in its default form, segments.
    ...(command.format === "json" ? {} : { format: command.format }),
    ...(command.translateTo === undefined ? {} : { translate_to: command.translateTo }),
    ...(command.language === undefined ? {} : { language: command.language }),
    ...(command.mode === undefined ? {} : { mode: command.mode }),
    ...(command.chunkSize === undefined ? {} : { chunk_size: command.chunkSize }),
    ...(command.words ? { words: true } : {}),
  };
  const progress = progressDisplay(streams.err);
  let result: FinishedTranscriptResult;
  try {
    result = await verbatim.transcripts.video(request, { wait: { onProgress: progress.update } });
  } finally {
    progress.finish();
  }
  const document =
    command.chunkSize === undefined || command.format === "json"
      ? rendered(result, command.format)
      : chunkLines(await chunksOf(result, command.chunkSize, verbatim));
  if (command.out === undefined) return streams.out(document);
  await writeFile(command.out, document);
  streams.err.write(`wrote ${command.out}\n`);
}

/**
 * The document to print. A 200 carries what `format` asked the server for; a speech job's
 * transcript always has text and segments, which the SDK's own formatters turn into subtitles.
 */
function rendered(result: FinishedTranscriptResult, format: OutputFormat): string {
  const { data } = result;
  if (format === "json") return json(data);
  if (format === "text") return printable(withNewline(required(data.text, "text")));
  if ("job_id" in result) return format === "srt" ? toSrt(result.data.segments) : toVtt(result.data.segments);
  const answer = result.data;
  if (answer.format !== format) throw new UnreadableAnswerError(`the server answered no ${format} subtitles`);
  return printable(required(answer.subtitles, "subtitles"));
}

type TranscriptChunk = NonNullable<TranscriptResult["data"]["chunks"]>[number];

/**
 * The chunks the server cut. A speech job completes with text and segments only, so its chunks
 * come from the library's read of the same transcript, which is free.
 */
async function chunksOf(
  result: FinishedTranscriptResult,
  size: number,
  verbatim: Verbatim,
): Promise<TranscriptChunk[]> {
  if (!("job_id" in result)) return required(result.data.chunks, "chunks");
  const { platform, video_id } = result.data;
  const { data } = await verbatim.library.get(`${platform}:${video_id}`, { chunk_size: size });
  return required(data.chunks, "chunks");
}

/** One JSON object a line, as retrieval pipelines read them. */
function chunkLines(chunks: readonly TranscriptChunk[]): string {
  return chunks.map((chunk) => `${printableJson(chunk)}\n`).join("");
}

function required<T>(value: T | undefined, field: string): T {
  if (value === undefined) throw new UnreadableAnswerError(`the server's answer has no ${field}`);
  return value;
}

/**
 * Starts a live session and prints its final segments as they come (or, with json, every event a
 * line), until the stream ends or an interrupt stops the session: what was heard is charged and
 * kept in the library either way. Notes on the session go to standard error.
 */
async function live(
  command: Extract<CliCommand, { name: "live" }>,
  verbatim: Verbatim,
  streams: CliStreams,
): Promise<void> {
  const session = await verbatim.live.start({
    url: command.link,
    ...(command.language === undefined ? {} : { language: command.language }),
    ...(command.maxMinutes === undefined ? {} : { max_minutes: command.maxMinutes }),
    ...(command.json ? {} : { partials: false }),
  });
  streams.err.write(printable(`live session ${session.id}: ${command.link}\n`));
  const reading = new AbortController();
  const stop = () => {
    reading.abort();
    streams.err.write(printable(`stopping live session ${session.id}\n`));
  };
  streams.interrupt?.addEventListener("abort", stop, { once: true });
  try {
    for await (const event of session.events({ signal: reading.signal })) {
      if (command.json) streams.out(`${printableJson(event)}\n`);
      else if (event.type === "live.segment") streams.out(printable(`${event.text}\n`));
      if (event.type === "live.gap") {
        streams.err.write(printable(`gap: ${event.from} s to ${event.to} s not transcribed (${event.reason})\n`));
      }
      if (event.type === "live.ended") {
        streams.err.write(
          printable(`ended (${event.reason}): ${event.audio_seconds} s, ${creditsOf(event.credits_spent)}\n`),
        );
      }
      if (event.type === "live.failed") {
        throw apiErrorFrom(event.error, { status: 200, requestId: null, retryAfter: null });
      }
    }
  } finally {
    streams.interrupt?.removeEventListener("abort", stop);
  }
  if (reading.signal.aborted) {
    const { data } = await session.stop();
    streams.err.write(printable(`${data.status}: ${data.audio_seconds} s, ${creditsOf(data.credits_spent)}\n`));
  }
}

async function languages(
  command: Extract<CliCommand, { name: "languages" }>,
  verbatim: Verbatim,
  streams: CliStreams,
): Promise<void> {
  const { data } = await verbatim.transcripts.languages(command.link);
  if (command.json) return streams.out(json(data));
  if (data.languages.length === 0) {
    streams.err.write(
      printable(`${data.video_id} has no caption tracks; speech recognition (--mode audio) would transcribe it\n`),
    );
    return;
  }
  const lines = data.languages.map((track) => {
    const targets = track.translatable ? `${track.translation_targets.length} translation targets` : "not translatable";
    return [track.language, track.kind, track.name ?? "-", targets].join("\t");
  });
  streams.out(printable(`${["language", "kind", "name", "translations"].join("\t")}\n${lines.join("\n")}\n`));
}

/**
 * An item's metadata as `field<TAB>value` lines (what the source does not say left out), its
 * chapters one a line (`start<TAB>title`), then its description.
 */
function metadataLines(data: VideoMetadata): string {
  const { stats } = data;
  const fields: Array<[string, string | number | null]> = [
    ["platform", data.platform],
    ["id", data.video_id],
    ["url", data.url],
    ["title", data.title],
    ["channel", data.channel.name],
    ["channel url", data.channel.url],
    ["duration", data.duration === null ? null : clock(data.duration)],
    ["published", data.published_at],
    ["language", data.language],
    ["views", stats?.views ?? null],
    ["likes", stats?.likes ?? null],
    ["comments", stats?.comments ?? null],
    ["live", data.live_status],
    ["tags", data.tags.join(", ") || null],
    ["captions", data.captions.map((track) => `${track.language} (${track.kind})`).join(", ") || null],
  ];
  const lines = fields.flatMap(([name, value]) => (value === null ? [] : [`${name}\t${value}`]));
  if (data.chapters.length > 0) {
    lines.push("", "chapters", ...data.chapters.map((chapter) => `${clock(chapter.start)}\t${chapter.title}`));
  }
  if (data.description) lines.push("", data.description);
  return `${lines.join("\n")}\n`;
}

/** Seconds as `m:ss` or `h:mm:ss`, as descriptions write chapter times. */
function clock(seconds: number): string {
  const whole = Math.floor(seconds);
  const [hours, minutes, rest] = [Math.floor(whole / 3600), Math.floor((whole % 3600) / 60), whole % 60];
  const tail = `${String(rest).padStart(2, "0")}`;
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, "0")}:${tail}` : `${minutes}:${tail}`;
}

/** A row as one tab-separated line: id, publication date, title. */
function rowLine(row: ListRow): string {
  if ("videoId" in row) return `${[row.videoId, row.publishedAt?.slice(0, 10) ?? "-", row.title].join("\t")}\n`;
  return `${[row.id, "-", row.title].join("\t")}\n`;
}

function json(value: unknown): string {
  return `${printableJson(value, 2)}\n`;
}

function withNewline(text: string): string {
  return text.endsWith("\n") ? text : `${text}\n`;
}

/** The exit status of a failure: its error number's family, as `verbatim --help` lists them. */
export function exitCodeOf(error: unknown): number {
  if (error instanceof ApiError) {
    const family = Math.floor(error.number / 1000);
    return family >= exitCodes.request && family <= exitCodes.transient ? family : exitCodes.ours;
  }
  if (error instanceof ConnectionError || error instanceof JobTimeoutError) return exitCodes.transient;
  return exitCodes.ours;
}

/** What a failure prints: the code and number to branch on, what to change, and the request to quote. */
export function errorReport(error: unknown): string {
  if (!(error instanceof ApiError)) {
    return printable(`error: ${error instanceof Error ? error.message : String(error)}\n`);
  }
  const lines = [`error: ${error.code} (${error.number}): ${error.message}`];
  for (const issue of error.issues) lines.push(`  ${issue.path}: ${issue.message}`);
  if (error.retryWith) lines.push(`  retry with: ${JSON.stringify(error.retryWith)}`);
  if (error.retryAfter !== null) lines.push(`  retry after: ${error.retryAfter} s`);
  lines.push(`  docs: ${error.docs}`);
  if (error.requestId) lines.push(`  request: ${error.requestId}`);
  return printable(`${lines.join("\n")}\n`);
}

/** `1 credit`, `2 credits`. */
function creditsOf(count: number): string {
  return `${count} credit${count === 1 ? "" : "s"}`;
}
