import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Verbatim } from "@verbatim/sdk";
import { parseSync } from "subtitle";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// The SDK's own harness for its command line: it builds the CLI as the package's build does and
// runs it as a process, on pipes or on a terminal. Written once, beside the CLI it runs.
import {
  type BuiltCli,
  buildCli,
  type CliRun,
  runCli,
  runCliOnTerminal,
} from "../../../../packages/sdk/test/support/cli-process.ts";
import { type AudioServer, startAudioServer } from "../audio/harness.ts";
import { audioFixture } from "../support/fake-podcast-host.ts";
import { FakeYoutube, recordedVideos } from "../support/fake-youtube.ts";
import { sdkFor } from "../support/sdk.ts";
import { type RecordedLists, registerRecordedLists } from "../support/youtube-lists.ts";
import { serverStartTimeoutMs } from "../support/youtube-server.ts";

// `npx @verbatim/sdk <command>` as a process against a live server: captions and lists from the
// fake YouTube's recordings, a speech job run by the shipped model on the JFK recording. The
// server-rendered formats and `languages` are covered against a stand-in in
// packages/sdk/test/cli.test.ts until the server answers them.

const spokenPhrase = "what you can do for your country";

let youtube: FakeYoutube;
let server: AudioServer;
let lists: RecordedLists;
let verbatim: Verbatim;
let cli: BuiltCli;
let scratch: string;

beforeAll(async () => {
  const built = buildCli();
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
});

describe("exit codes from the live server", { timeout: 60_000 }, () => {
  it("a video taken down exits with 4, its content error on stderr", async () => {
    const run = await verbatimCli(["transcript", recordedVideos.takenDown]);
    expect(run).toMatchObject({ code: 4, stdout: "" });
    expect(run.stderr).toMatch(/^error: [a-z_]+ \(4\d{3}\): /);
    expect(run.stderr).toMatch(/^ {2}request: req_[0-9A-Z]{26}$/m);
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
