import type { components } from "@verbatim/contract";
import { Command, InvalidArgumentError, Option } from "commander";

/** How `transcript` prints the transcript: a document the server renders, or the data as JSON. */
export type OutputFormat = "text" | "srt" | "vtt" | "json";
const outputFormats: readonly OutputFormat[] = ["text", "srt", "vtt", "json"];
const modes: readonly components["schemas"]["TranscriptMode"][] = ["auto", "captions", "audio"];
type SearchPlatform = components["schemas"]["SearchPlatform"];
const searchPlatforms: readonly SearchPlatform[] = ["youtube", "tiktok", "instagram", "spotify", "apple", "rss"];

/** What the command line asked for. */
export type CliCommand =
  | {
      name: "transcript";
      link: string;
      format: OutputFormat;
      translateTo?: string;
      language?: string;
      mode?: components["schemas"]["TranscriptMode"];
      chunkSize?: number;
      words?: boolean;
      out?: string;
    }
  | { name: "live"; link: string; json: boolean; language?: string; maxMinutes?: number }
  | { name: "languages"; link: string; json: boolean }
  | { name: "metadata"; link: string; json: boolean }
  | { name: "channel"; channel: string; since?: string; limit: number; json: boolean }
  | { name: "search"; query: string; platform?: SearchPlatform; since?: string; limit: number; json: boolean };

/** The exit status of each outcome: 0, or the thousands digit of the error's number. */
export const exitCodes = { ok: 0, request: 1, account: 2, input: 3, content: 4, transient: 5, ours: 9 } as const;

const exitCodeMeanings: Record<keyof typeof exitCodes, string> = {
  ok: "success",
  request: "the request is wrong (1xxx: invalid_request, unauthorized, not_found), or the command line is",
  account: "the account cannot take it now (2xxx: insufficient_credits, rate_limited)",
  input: "the input cannot be taken (3xxx: unsupported_platform, invalid_input, audio_too_long)",
  content: "the content gives no transcript (4xxx: private, no_captions, translation_unavailable)",
  transient: "a transient failure, retry later (5xxx, a failed connection, a timeout, a job still running)",
  ours: "Verbatim failed (9xxx), or answered something this command cannot read",
};

const helpAfter = [
  "",
  "Exit codes follow the families of the API's error numbers:",
  ...Object.entries(exitCodes).map(
    ([outcome, code]) => `  ${code}  ${exitCodeMeanings[outcome as keyof typeof exitCodes]}`,
  ),
  "",
  "Output: a control character in what the server sends (a terminal's escape sequence among them)",
  "prints as U+FFFD in text, subtitles and rows, and as a \\u escape in JSON, to a terminal, a pipe or a file.",
  "",
  "Environment:",
  "  VERBATIM_API_KEY   the API key (vb_live_...); required",
  "  VERBATIM_BASE_URL  the server, with or without /api/v2 (default http://127.0.0.1:8080)",
  "",
].join("\n");

interface Output {
  out: (text: string) => void;
  err: (text: string) => void;
}

function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
}

/** Parses `verbatim <command>`; answers `undefined` when commander printed help. Errors throw `CommanderError`. */
export function parseCommand(argv: string[], output: Output): CliCommand | undefined {
  let chosen: CliCommand | undefined;
  userProgram((command) => {
    chosen = command;
  }, output).parse(argv, { from: "user" });
  return chosen;
}

function userProgram(choose: (command: CliCommand) => void, output: Output): Command {
  // Subcommands copy these settings when they are added, so they come first.
  const program = new Command("verbatim")
    .description("Transcripts, metadata, caption languages, channels and searches from a Verbatim server.")
    .exitOverride()
    .configureOutput({ writeOut: output.out, writeErr: output.err })
    .showHelpAfterError()
    .addHelpText("after", helpAfter);

  program
    .command("transcript")
    .description("print the transcript of a video, podcast episode, feed or media file")
    .argument("<link>", "a YouTube id or link, a platform link, a podcast or feed URL, a media file URL")
    .addOption(
      new Option("--format <format>", "text, a subtitle file (srt, vtt), or the data as json")
        .choices(outputFormats)
        .default("text"),
    )
    .option("--translate-to <language>", "translate the captions into this language (BCP 47), e.g. de")
    .option("--language <language>", "the preferred caption language (BCP 47), e.g. en")
    .addOption(new Option("--mode <mode>", "where the text may come from").choices(modes))
    .option(
      "--chunk-size <characters>",
      "print chunks of about this many characters (100 to 10000), one JSON object a line, for a language model",
      chunkSize,
    )
    .option(
      "--words",
      "time each word: cue timestamps in --format vtt, segments[].words in --format json (not text nor srt)",
    )
    .option("--out <file>", "write the transcript to this file instead of standard output")
    .option(
      "--live",
      "transcribe a live stream as it plays (a YouTube or Twitch broadcast, an HLS playlist, a radio stream): each final segment prints as it is heard, --format json prints every event a line; 1 credit per started minute; Ctrl-C stops the session",
    )
    .option("--max-minutes <minutes>", "with --live: stop after this many minutes of audio", wholeNumber)
    .action(
      (
        link: string,
        options: {
          format: OutputFormat;
          translateTo?: string;
          language?: string;
          mode?: components["schemas"]["TranscriptMode"];
          chunkSize?: number;
          words?: boolean;
          out?: string;
          live?: boolean;
          maxMinutes?: number;
        },
        command: Command,
      ) => {
        const { live, maxMinutes, ...rest } = options;
        if (!live) {
          if (maxMinutes !== undefined) command.error("error: --max-minutes goes with --live");
          return choose({ name: "transcript", link, ...rest });
        }
        if (rest.format !== "text" && rest.format !== "json") {
          command.error("error: --live prints text or json: subtitles of a stream are never finished");
        }
        const others = (["translateTo", "mode", "chunkSize", "words", "out"] as const).filter(
          (name) => rest[name] !== undefined,
        );
        if (others.length > 0) command.error(`error: --live does not take --${others.map(kebab).join(", --")}`);
        return choose({
          name: "live",
          link,
          json: rest.format === "json",
          ...(rest.language === undefined ? {} : { language: rest.language }),
          ...(maxMinutes === undefined ? {} : { maxMinutes }),
        });
      },
    );

  program
    .command("languages")
    .description("list a source's caption tracks and what each can be translated into (free)")
    .argument("<link>", "a YouTube id or link, or a platform link")
    .option("--json", "print the data as JSON")
    .action((link: string, options: { json?: boolean }) =>
      choose({ name: "languages", link, json: Boolean(options.json) }),
    );

  program
    .command("metadata")
    .description("print what a source says about an item: title, channel, date, tags, chapters, counts (1 credit)")
    .argument("<link>", "a YouTube id or link, a platform link, a podcast or feed URL, a media file URL")
    .option("--json", "print the data as JSON")
    .action((link: string, options: { json?: boolean }) =>
      choose({ name: "metadata", link, json: Boolean(options.json) }),
    );

  program
    .command("channel")
    .description(
      "list a channel's uploads, a profile's posts or a feed's episodes, newest first (each page of up to 50 is a charged request)",
    )
    .argument(
      "<channel>",
      "a YouTube @handle, channel URL or UC... id, a TikTok or Instagram profile URL, or a feed (or podcast page) URL",
    )
    .option("--since <video_id>", "stop at this item (a row's videoId or url): list only the newer ones")
    .option("--limit <n>", "list at most this many videos", wholeNumber, 50)
    .option("--json", "print the rows as JSON")
    .action((channel: string, options: { since?: string; limit: number; json?: boolean }) =>
      choose({ name: "channel", channel, ...options, json: Boolean(options.json) }),
    );

  program
    .command("search")
    .description("search videos (each page of up to 50 is a charged request)")
    .argument("<query>", "the search text")
    .addOption(
      new Option(
        "--platform <platform>",
        "where to search: youtube (the default), apple or rss (Apple's podcast directory), spotify (where the server has Spotify's Web API credentials); TikTok and Instagram have no public search",
      ).choices(searchPlatforms),
    )
    .option("--since <video_id>", "stop at this video: list only the results before it")
    .option("--limit <n>", "list at most this many videos", wholeNumber, 50)
    .option("--json", "print the rows as JSON")
    .action((query: string, options: { platform?: SearchPlatform; since?: string; limit: number; json?: boolean }) =>
      choose({ name: "search", query, ...options, json: Boolean(options.json) }),
    );

  return program;
}

function chunkSize(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 100 || number > 10_000) {
    throw new InvalidArgumentError("a whole number from 100 to 10000");
  }
  return number;
}

function wholeNumber(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw new InvalidArgumentError("a whole number above 0");
  return number;
}
