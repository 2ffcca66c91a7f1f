import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Segment, Verbatim } from "@verbatim/sdk";
// The testkit builds the SDK's command line as the package's build does and runs it as a process,
// on pipes or on a terminal, as the SDK's own tests do.
import { type BuiltCli, buildCli, type CliRun, runCli, runCliOnTerminal } from "@verbatim/testkit/cli-process";
import { audioFixture } from "@verbatim/testkit/fake-podcast-host";
import { FakeYoutube, recordedVideos } from "@verbatim/testkit/fake-youtube";
import { type RecordedLists, registerRecordedLists } from "@verbatim/testkit/youtube-lists";
import { parseSync } from "subtitle";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AudioServer, startAudioServer } from "../audio/harness.ts";
import { sdkFor } from "../support/sdk.ts";
import { serverStartTimeoutMs } from "../support/youtube-server.ts";

// `npx @verbatim/sdk <command>` as a process against a live server: captions, YouTube's German
// translation of the captioned video's English track, its caption tracks and lists from the fake
// YouTube's recordings, a speech job run by the shipped model on the JFK recording. What a live
// server cannot do on cue (a job at 40%, an error of each family) runs against the stand-in of
// packages/sdk/test/cli.test.ts.

const spokenPhrase = "what you can do for your country";

let youtube: FakeYoutube;
let server: AudioServer;
let lists: RecordedLists;
let verbatim: Verbatim;
let cli: BuiltCli;
let scratch: string;

beforeAll(async () => {
  const built = buildCli(dirname(createRequire(import.meta.url).resolve("@verbatim/sdk/package.json")));
  youtube = await FakeYoutube.start();
  youtube.serveRecordedVideos();
  lists = registerRecordedLists(youtube);
  // Every transcription of media is a job, so the progress display runs on a short recording.
  server = await startAudioServer({ youtube, inlineAudioSeconds: 0, credits: 1000 });
  server.host.serveFile("/media/jfk.mp3", audioFixture("whisper-cpp/jfk.mp3"), "audio/mpeg");
  verbatim = sdkFor(server);
  cli = await built;
  scratch = await mkdtemp(join(tmpdir(), "verbatim-cli-live-"));
}, 2 * serverStartTimeoutMs);
afterAll(async () => {
  await server?.close();
  await youtube?.close();
  await cli?.remove();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** The environment of the test account's key and the server. */
function account(apiKey = server.key.key): Record<string, string> {
  return { VERBATIM_API_KEY: apiKey, VERBATIM_BASE_URL: server.baseUrl };
}

const verbatimCli = (args: string[], env = account()): Promise<CliRun> => runCli(cli, args, env);

/** The JFK recording under an address of its own: each address is new media, so it makes a new job. */
function jfk(variant: string): string {
  return server.host.url(`/media/jfk.mp3?${variant}`);
}

/** The cues of a SubRip or WebVTT document, as the `subtitle` package reads them. */
function cuesOf(document: string) {
  return parseSync(document).flatMap((node) => (node.type === "cue" ? [node.data] : []));
}

/** The cue each segment should be: subtitles round its times to the millisecond. */
function cuesFor(segments: readonly Segment[]) {
  return segments.map((segment) => ({
    start: Math.round(segment.start * 1000),
    end: Math.round((segment.start + segment.duration) * 1000),
    text: segment.text,
  }));
}

/** WebVTT writes `&`, `<` and `>` as character references, which the `subtitle` package leaves as they are. */
function decodedVttText(text: string): string {
  return text.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&amp;", "&");
}

/** The segments of a transcript as the SDK answers it. */
async function segmentsOf(request: { video: string; translate_to?: string }): Promise<Segment[]> {
  const { data } = await verbatim.transcripts.video(request, { wait: true });
  if (data.segments === undefined) throw new Error(`no segments in ${JSON.stringify(data)}`);
  return data.segments;
}

function idsOf(lines: string): string[] {
  return lines
    .split("\n")
    .filter(Boolean)
    .map((line) => line.split("\t")[0] ?? "");
}

describe("verbatim transcript", { timeout: 60_000 }, () => {
  it("prints a captioned video's data as JSON, the transcript the SDK answers", async () => {
    const run = await verbatimCli(["transcript", recordedVideos.captioned, "--format", "json"]);
    expect(run).toMatchObject({ code: 0, stderr: "" });
    const printed = JSON.parse(run.stdout);
    expect(printed).toMatchObject({ kind: "transcript", video_id: recordedVideos.captioned, source: "captions" });
    const { data } = await verbatim.transcripts.video(recordedVideos.captioned);
    expect(printed).toEqual(data);
    expect(printed.segments.length).toBeGreaterThan(0);
  });

  it("prints the chunks the server cut with --chunk-size, one JSON object a line", async () => {
    const run = await verbatimCli(["transcript", recordedVideos.captioned, "--chunk-size", "100"]);
    expect(run).toMatchObject({ code: 0, stderr: "" });
    const printed = run.stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    const chunked = await verbatim.transcripts.video({ video: recordedVideos.captioned, chunk_size: 100 });
    const text = await verbatim.transcripts.video({ video: recordedVideos.captioned, format: "text" });
    if (chunked.data.kind !== "transcript" || text.data.kind !== "transcript") throw new Error("captions became a job");
    expect(printed).toEqual(chunked.data.chunks);
    expect(printed.length).toBeGreaterThan(1);
    expect(printed.map((chunk: { text: string }) => chunk.text).join(" ")).toBe(text.data.text);
  });

  it("takes a speech job's chunks from the library once the job completes", async () => {
    const run = await verbatimCli(["transcript", jfk("chunks"), "--chunk-size", "100"]);
    expect(run.code, run.stderr).toBe(0);
    const chunks: Array<{ text: string; start: number; end: number }> = run.stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect([...chunk.text].length).toBeLessThanOrEqual(100);
    expect(chunks.map((chunk) => chunk.text).join(" ")).toContain(spokenPhrase);
  });

  it("refuses a --chunk-size outside 100 to 10000 before any request, exiting with 1", async () => {
    const run = await verbatimCli(["transcript", recordedVideos.captioned, "--chunk-size", "99"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("a whole number from 100 to 10000");
  });

  it("writes --out and prints nothing on stdout", async () => {
    const file = join(scratch, "captioned.json");
    const run = await verbatimCli([
      "transcript",
      `https://youtu.be/${recordedVideos.captioned}`,
      "--format",
      "json",
      "--out",
      file,
    ]);
    expect(run).toMatchObject({ code: 0, stdout: "", stderr: `wrote ${file}\n` });
    expect(JSON.parse(await readFile(file, "utf8"))).toMatchObject({ video_id: recordedVideos.captioned });
  });

  it("prints the text by default: the segments' texts joined", async () => {
    const run = await verbatimCli(["transcript", recordedVideos.captioned]);
    expect(run).toMatchObject({ code: 0, stderr: "" });
    const segments = await segmentsOf({ video: recordedVideos.captioned });
    expect(run.stdout).toBe(`${segments.map((segment) => segment.text).join(" ")}\n`);
  });

  it("prints the server's SubRip and WebVTT, which the subtitle package reads back as the segments", async () => {
    const segments = await segmentsOf({ video: recordedVideos.captioned });
    const srt = await verbatimCli(["transcript", recordedVideos.captioned, "--format", "srt"]);
    expect(srt).toMatchObject({ code: 0, stderr: "" });
    expect(srt.stdout).toMatch(/^1\n00:00:00,000 --> /);
    expect(cuesOf(srt.stdout)).toEqual(cuesFor(segments));
    const vtt = await verbatimCli(["transcript", recordedVideos.captioned, "--format", "vtt"]);
    expect(vtt).toMatchObject({ code: 0, stderr: "" });
    expect(vtt.stdout).toMatch(/^WEBVTT\n\n/);
    // The captioned track has an `&`, which WebVTT must escape and SubRip must not.
    expect(vtt.stdout).toContain("&amp;");
    expect(cuesOf(vtt.stdout).map((cue) => ({ ...cue, text: decodedVttText(cue.text) }))).toEqual(cuesFor(segments));
  });

  it("--translate-to prints YouTube's translation, naming the language it was translated from", async () => {
    const run = await verbatimCli(["transcript", recordedVideos.captioned, "--translate-to", "de", "--format", "json"]);
    expect(run).toMatchObject({ code: 0, stderr: "" });
    const printed = JSON.parse(run.stdout);
    expect(printed).toMatchObject({ video_id: recordedVideos.captioned, language: "de", source_language: "en" });
    expect(printed.segments[0].text).toBe("Microsofts Surface Go ist das kleinste");
    expect(printed.segments).toEqual(await segmentsOf({ video: recordedVideos.captioned, translate_to: "de" }));
  });

  it("writes a translation's WebVTT to --out and nothing to stdout", async () => {
    const file = join(scratch, "captioned.de.vtt");
    const run = await verbatimCli([
      "transcript",
      recordedVideos.captioned,
      "--translate-to",
      "de",
      "--format",
      "vtt",
      "--out",
      file,
    ]);
    expect(run).toMatchObject({ code: 0, stdout: "", stderr: `wrote ${file}\n` });
    const cues = cuesOf(await readFile(file, "utf8")).map((cue) => ({ ...cue, text: decodedVttText(cue.text) }));
    expect(cues).toEqual(cuesFor(await segmentsOf({ video: recordedVideos.captioned, translate_to: "de" })));
  });

  it("follows a speech job with progress lines when stderr is no terminal, and prints its SRT", async () => {
    const run = await verbatimCli(["transcript", jfk("cli-lines"), "--format", "srt"]);
    expect(run.code).toBe(0);
    const progress = run.stderr.split("\n").filter(Boolean);
    expect(progress[0]).toMatch(/^job job_[0-9A-Z]{26} transcribing$/);
    expect(progress.at(-1)).toBe("progress 100%");
    for (const line of progress.slice(1)) expect(line).toMatch(/^progress \d{1,3}%$/);
    const cues = parseSync(run.stdout).map((node) => node.data);
    expect(cues.length).toBeGreaterThan(0);
    expect(cues.map((cue) => (typeof cue === "string" ? "" : cue.text)).join(" ")).toContain(spokenPhrase);
  });

  it("draws a progress bar on a terminal, then prints the job's text", async () => {
    const run = await runCliOnTerminal(cli, ["transcript", jfk("cli-terminal")], account());
    expect(run.code).toBe(0);
    const eraseLine = "\r\u001b[2K";
    const finalBar = run.stdout.split(eraseLine).at(-1) ?? "";
    expect(run.stdout).toContain(eraseLine);
    expect(finalBar).toMatch(/^█{30} 100% transcribing \(job_[0-9A-Z]{26}\)\r\n/);
    expect(run.stdout).toContain(spokenPhrase);
    expect(run.stdout).not.toMatch(/^progress /m);
  });
});

describe("verbatim languages", { timeout: 60_000 }, () => {
  it("prints a table of the caption tracks, each with how many languages it translates into", async () => {
    const run = await verbatimCli(["languages", `https://youtu.be/${recordedVideos.captioned}`]);
    expect(run).toMatchObject({ code: 0, stderr: "" });
    // The recorded player response offers 18 translation languages; no track is offered its own
    // (Chinese, written in Simplified script, is offered Traditional), and Czech is not among them.
    expect(run.stdout.split("\n")).toEqual([
      "language\tkind\tname\ttranslations",
      "zh\tmanual\tChinese\t18 translation targets",
      "cs\tmanual\tCzech\t18 translation targets",
      "en\tmanual\tEnglish\t17 translation targets",
      "de\tmanual\tGerman\t17 translation targets",
      "hi\tmanual\tHindi\t17 translation targets",
      "ja\tmanual\tJapanese\t17 translation targets",
      "ko\tmanual\tKorean\t17 translation targets",
      "es\tmanual\tSpanish\t17 translation targets",
      "en\tauto\tEnglish (auto-generated)\t17 translation targets",
      "",
    ]);
  });

  it("--json prints the data the SDK answers", async () => {
    const run = await verbatimCli(["languages", recordedVideos.json3Captioned, "--json"]);
    expect(run).toMatchObject({ code: 0, stderr: "" });
    const { data } = await verbatim.transcripts.languages(recordedVideos.json3Captioned);
    expect(JSON.parse(run.stdout)).toEqual(data);
    expect(data.languages.map((track) => [track.language, track.kind])).toEqual([
      ["en", "manual"],
      ["en", "auto"],
    ]);
  });

  it("a media file has no caption tracks: nothing on stdout, and on stderr what would transcribe it", async () => {
    const run = await verbatimCli(["languages", jfk("cli-languages")]);
    const { data } = await verbatim.transcripts.languages(jfk("cli-languages"));
    expect(data).toMatchObject({ platform: "file", languages: [] });
    expect(run).toMatchObject({
      code: 0,
      stdout: "",
      stderr: `${data.video_id} has no caption tracks; speech recognition (--mode audio) would transcribe it\n`,
    });
  });
});

describe("verbatim metadata", { timeout: 60_000 }, () => {
  it("prints what the source says as field and value lines, then the description", async () => {
    const run = await verbatimCli(["metadata", `https://youtu.be/${recordedVideos.captioned}`]);
    expect(run).toMatchObject({ code: 0, stderr: "" });
    const lines = run.stdout.split("\n");
    expect(lines.slice(0, 5)).toEqual([
      "platform\tyoutube",
      `id\t${recordedVideos.captioned}`,
      `url\thttps://www.youtube.com/watch?v=${recordedVideos.captioned}`,
      "title\tSurface Go Review - It’s Awesome",
      "channel\tDave2D",
    ]);
    expect(lines).toContain("duration\t5:16");
    expect(lines).toContain("views\t1856109");
    expect(run.stdout).toMatch(/\n\nDave2D review of the Microsoft Surface Go\./);
  });

  it("--json prints the data the SDK answers", async () => {
    const run = await verbatimCli(["metadata", recordedVideos.json3Captioned, "--json"]);
    expect(run).toMatchObject({ code: 0, stderr: "" });
    const { data } = await verbatim.videos.metadata(recordedVideos.json3Captioned);
    expect(JSON.parse(run.stdout)).toEqual(data);
  });

  it("a video YouTube took down exits with 4, the content family", async () => {
    const run = await verbatimCli(["metadata", recordedVideos.takenDown]);
    expect(run.code).toBe(4);
    expect(run.stderr).toMatch(/^error: unavailable \(4002\)/);
  });
});

describe("verbatim channel and search", { timeout: 60_000 }, () => {
  const channel = () => (lists.channel.target.kind === "channel" ? lists.channel.target.channel : "");
  const query = () => (lists.search.target.kind === "search" ? lists.search.target.query : "");

  it("channel lists the newest uploads, one tab-separated line each, up to --limit", async () => {
    const run = await verbatimCli(["channel", channel(), "--limit", "5"]);
    expect(run).toMatchObject({ code: 0, stderr: "" });
    expect(idsOf(run.stdout)).toEqual(lists.channel.videoIds.slice(0, 5));
    for (const line of run.stdout.trimEnd().split("\n")) expect(line.split("\t")).toHaveLength(3);
  });

  it("channel --since stops at that video; --json prints the rows", async () => {
    const since = lists.channel.videoIds[3] ?? "";
    const run = await verbatimCli(["channel", channel(), "--since", since, "--json"]);
    expect(run.code).toBe(0);
    const rows = JSON.parse(run.stdout) as { videoId: string }[];
    expect(rows.map((row) => row.videoId)).toEqual(lists.channel.videoIds.slice(0, 3));
  });

  it("search lists the results across pages up to --limit", async () => {
    const run = await verbatimCli(["search", query(), "--limit", "25"]);
    expect(run.code).toBe(0);
    expect(idsOf(run.stdout)).toEqual(lists.search.videoIds.slice(0, 25));
  });

  it("search --platform another than youtube exits with 3, unsupported_platform on stderr", async () => {
    const run = await verbatimCli(["search", query(), "--platform", "tiktok"]);
    expect(run).toMatchObject({ code: 3, stdout: "" });
    expect(run.stderr).toMatch(/^error: unsupported_platform \(3001\): /);
  });

  it("search --platform refuses a platform the contract does not list before any request, exiting with 1", async () => {
    const run = await verbatimCli(["search", query(), "--platform", "vimeo"]);
    expect(run).toMatchObject({ code: 1, stdout: "" });
    expect(run.stderr).toMatch(/--platform/);
  });
});

describe("exit codes from the live server", { timeout: 60_000 }, () => {
  it("a video taken down exits with 4, its content error on stderr", async () => {
    const run = await verbatimCli(["transcript", recordedVideos.takenDown]);
    expect(run).toMatchObject({ code: 4, stdout: "" });
    expect(run.stderr).toMatch(/^error: [a-z_]+ \(4\d{3}\): /);
    expect(run.stderr).toMatch(/^ {2}request: req_[0-9A-Z]{26}$/m);
  });

  it("a translation YouTube does not offer exits with 4, listing the languages the track translates into", async () => {
    const run = await verbatimCli(["transcript", recordedVideos.captioned, "--translate-to", "sw"]);
    expect(run).toMatchObject({ code: 4, stdout: "" });
    expect(run.stderr).toMatch(/^error: translation_unavailable \(4107\): .* into sw; /);
    const { data } = await verbatim.transcripts.languages(recordedVideos.captioned);
    const english = data.languages.find((track) => track.language === "en" && track.kind === "manual");
    const targets = english?.translation_targets.map((target) => target.language);
    expect(targets).toContain("de");
    expect(run.stderr).toContain(`  retry with: ${JSON.stringify({ translate_to: targets })}\n`);
  });

  it("an account without credits exits with 2", async () => {
    const { key } = await server.platform.accounts.create({ plan: "pro", credits: 0, name: "cli without credits" });
    const run = await verbatimCli(["transcript", recordedVideos.captioned], account(key.key));
    expect(run).toMatchObject({ code: 2, stdout: "" });
    expect(run.stderr).toMatch(/^error: insufficient_credits \(2001\): /);
  });

  it("a key the server does not know exits with 1", async () => {
    const run = await verbatimCli(["search", "zoo"], account("vb_live_unknownkey"));
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^error: unauthorized \(1101\): /);
  });
});
