import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import type { components } from "@verbatim/contract";
import {
  type BuiltCli,
  buildCli,
  type CliRun,
  runCli as runBuiltCli,
  runCliOnTerminal,
} from "@verbatim/testkit/cli-process";
import { parseSync } from "subtitle";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { toSrt } from "../src/index.ts";
import { errorEnvelope, type Fault, FaultServer } from "./support/fault-server.ts";

// The command line as a process, against a loopback stand-in that answers the contract's shapes
// in a scripted order. The formats, translations, `languages` and the errors the live server can
// answer run against it in apps/api/test/sdk/cli.test.ts; here is what it cannot make happen on
// cue (a job at 40%, an error of each family, an answer that lacks what was asked, a track
// without a name or translations), the requests each option sends, and what needs no server.

type Transcript = components["schemas"]["Transcript"];

const videoId = "GJLlxj_dtq8";
const segments = [
  { start: 0, duration: 2.5, text: "Hallo zusammen" },
  { start: 2.5, duration: 3, text: "und willkommen" },
];
const transcriptFields: Transcript = {
  kind: "transcript",
  video_id: videoId,
  url: `https://www.youtube.com/watch?v=${videoId}`,
  platform: "youtube",
  title: "Surface Go",
  channel: "A channel",
  duration: 5.5,
  language: "de",
  source_language: "en",
  source: "captions",
  caption_kind: "manual",
  thumbnail_url: null,
  speakers: null,
  speech_engine: null,
};
const srtDocument =
  "1\n00:00:00,000 --> 00:00:02,500\nHallo zusammen\n\n2\n00:00:02,500 --> 00:00:05,500\nund willkommen\n\n";

function success(data: unknown, status = 200): Fault {
  return {
    status,
    headers: { "x-request-id": "req_standin" },
    body: { ok: true, request_id: "req_standin", data, usage: { credits_spent: 1, balance: 9, bytes: 28 } },
  };
}

const jobId = "job_01JD7XJ2Q4ZB8N6R0S2T4V6X8Y";
const jobAccepted: Fault = {
  status: 202,
  body: {
    ok: true,
    request_id: "req_accepted",
    status: "processing",
    job_id: jobId,
    poll_url: `/api/v2/transcripts/jobs/${jobId}`,
    data: { kind: "transcript_job", video_id: "jfk", platform: "file" },
    usage: { credits_spent: 0, balance: 10, bytes: 0 },
  },
};
const jobAt40: Fault = {
  status: 200,
  body: { ok: true, request_id: "req_poll", status: "processing", job_id: jobId, data: null, progress: 0.4 },
};
const jobCompleted: Fault = {
  status: 200,
  body: {
    ok: true,
    request_id: "req_done",
    status: "completed",
    job_id: jobId,
    data: { ...transcriptFields, source: "audio", caption_kind: null, text: "Hallo zusammen und willkommen", segments },
    usage: { credits_spent: 1, balance: 9, bytes: 28 },
  },
};

let server: FaultServer | undefined;
let cli: BuiltCli;

beforeAll(async () => {
  cli = await buildCli(fileURLToPath(new URL("..", import.meta.url)));
}, 60_000);
afterAll(async () => {
  await cli?.remove();
});

const runCli = (args: string[], env: Record<string, string>): Promise<CliRun> => runBuiltCli(cli, args, env);
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Starts the stand-in with its answers, and the environment that points the command line at it. */
async function standIn(script: Fault[]): Promise<Record<string, string>> {
  server = await FaultServer.start(script);
  return { VERBATIM_API_KEY: "vb_live_standin", VERBATIM_BASE_URL: server.baseUrl };
}

function sentBodies(): unknown[] {
  return (server?.requests ?? []).filter((request) => request.body).map((request) => JSON.parse(request.body));
}

describe("verbatim transcript", { timeout: 30_000 }, () => {
  it("asks the server for SRT with every option, and prints its document as is", async () => {
    const env = await standIn([success({ ...transcriptFields, format: "srt", subtitles: srtDocument })]);
    const run = await runCli(
      ["transcript", videoId, "--format", "srt", "--translate-to", "de", "--language", "en", "--mode", "captions"],
      env,
    );
    expect(run).toMatchObject({ code: 0, stdout: srtDocument, stderr: "" });
    expect(server?.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      "POST /api/v2/transcripts/video",
    ]);
    expect(server?.requests[0]?.headers.authorization).toBe("Bearer vb_live_standin");
    expect(sentBodies()).toEqual([
      { video: videoId, format: "srt", translate_to: "de", language: "en", mode: "captions" },
    ]);
    expect(parseSync(run.stdout).map((node) => node.data)).toEqual([
      { start: 0, end: 2500, text: "Hallo zusammen" },
      { start: 2500, end: 5500, text: "und willkommen" },
    ]);
  });

  it("fails with 9 when the answer lacks what was asked", async () => {
    const env = await standIn([success({ ...transcriptFields, segments })]);
    const run = await runCli(["transcript", videoId, "--format", "srt"], env);
    expect(run).toMatchObject({ code: 9, stdout: "", stderr: "error: the server answered no srt subtitles\n" });
  });
});

describe("a speech job", { timeout: 30_000 }, () => {
  it("without a terminal, prints plain progress lines on stderr and the subtitles of its segments", async () => {
    const env = await standIn([jobAccepted, jobAt40, jobCompleted]);
    const run = await runCli(["transcript", "https://media.example/jfk.mp3", "--format", "srt"], env);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(`job ${jobId} transcribing\nprogress 40%\nprogress 100%\n`);
    expect(run.stdout).toBe(toSrt(segments));
    expect(server?.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      "POST /api/v2/transcripts/video",
      `GET /api/v2/transcripts/jobs/${jobId}`,
      `GET /api/v2/transcripts/jobs/${jobId}`,
    ]);
  });

  it("with --words, asks for word times, polls with ?words=true and prints WebVTT with a cue timestamp before each word", async () => {
    const timed = [
      {
        ...segments[0],
        words: [
          { text: "Hallo", start: 0, duration: 0.6 },
          { text: "zusammen", start: 0.6, duration: 1.9 },
        ],
      },
      segments[1],
    ];
    const completed = {
      ...jobCompleted,
      body: {
        ...(jobCompleted.body as object),
        data: {
          ...transcriptFields,
          source: "audio",
          caption_kind: null,
          text: "Hallo zusammen und willkommen",
          segments: timed,
          word_timing: "source",
        },
      },
    };
    const env = await standIn([jobAccepted, completed]);
    const run = await runCli(["transcript", "https://media.example/jfk.mp3", "--format", "vtt", "--words"], env);
    expect(run.code, run.stderr).toBe(0);
    expect(sentBodies()).toEqual([{ video: "https://media.example/jfk.mp3", format: "vtt", words: true }]);
    expect(server?.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      "POST /api/v2/transcripts/video",
      `GET /api/v2/transcripts/jobs/${jobId}?words=true`,
    ]);
    expect(run.stdout).toContain("00:00:00.000 --> 00:00:02.500\nHallo <00:00:00.600>zusammen\n");
  });

  it("on a terminal, redraws one progress bar in place, then prints the transcript", async () => {
    const env = await standIn([jobAccepted, jobAt40, jobCompleted]);
    const run = await runCliOnTerminal(cli, ["transcript", "https://media.example/jfk.mp3"], env);
    expect(run.code).toBe(0);
    const erase = "\r\x1b[2K";
    expect(run.stdout).toContain(`${erase}${"█".repeat(12)}${"░".repeat(18)}  40% transcribing (${jobId})`);
    expect(run.stdout).toContain(`${erase}${"█".repeat(30)} 100% transcribing (${jobId})\r\n`);
    expect(run.stdout.endsWith("Hallo zusammen und willkommen\r\n")).toBe(true);
    expect(run.stdout).not.toContain("progress 40%");
  });
});

describe("verbatim languages", { timeout: 30_000 }, () => {
  const languages = {
    kind: "caption_languages",
    video_id: videoId,
    platform: "youtube",
    languages: [
      {
        language: "en",
        name: "English",
        kind: "manual",
        translatable: true,
        translation_targets: [
          { language: "de", name: "German" },
          { language: "fr", name: "French" },
        ],
      },
      { language: "en", name: null, kind: "auto", translatable: false, translation_targets: [] },
    ],
  } satisfies components["schemas"]["CaptionLanguages"];

  it("prints a track without a name as - and one without translations as not translatable", async () => {
    const env = await standIn([success(languages)]);
    const run = await runCli(["languages", `https://youtu.be/${videoId}`], env);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      "language\tkind\tname\ttranslations\nen\tmanual\tEnglish\t2 translation targets\nen\tauto\t-\tnot translatable\n",
    );
    expect(server?.requests[0]?.path).toBe("/api/v2/transcripts/languages");
    expect(sentBodies()).toEqual([{ video: `https://youtu.be/${videoId}` }]);
  });
});

describe("exit codes", { timeout: 30_000 }, () => {
  const families: [string, number, number, number][] = [
    ["invalid_request", 1001, 400, 1],
    ["insufficient_credits", 2001, 402, 2],
    ["unsupported_platform", 3001, 422, 3],
    ["translation_unavailable", 4107, 422, 4],
    ["upstream_unavailable", 5005, 503, 5],
    ["internal_error", 9001, 500, 9],
  ];
  for (const [code, number, status, exitCode] of families) {
    it(`${code} (${number}) exits with ${exitCode}`, async () => {
      // Retry-After 0 keeps the SDK's retries of a 5xx from waiting.
      const env = await standIn([{ status, headers: { "retry-after": "0" }, body: errorEnvelope(code, number) }]);
      const run = await runCli(["transcript", videoId], env);
      expect(run.code).toBe(exitCode);
      expect(run.stdout).toBe("");
      expect(run.stderr.split("\n")[0]).toBe(`error: ${code} (${number}): ${code} happened`);
    });
  }

  it("a server that cannot be reached exits with 5", async () => {
    const env = await standIn([]);
    await server?.close();
    server = undefined;
    const run = await runCli(["search", "zoo"], env);
    expect(run.code).toBe(5);
    expect(run.stderr).toMatch(/^error: /);
  });

  it("without VERBATIM_API_KEY, exits with 1 before any request", async () => {
    const env = await standIn([success({})]);
    const run = await runCli(["transcript", videoId], { VERBATIM_BASE_URL: env.VERBATIM_BASE_URL ?? "" });
    expect(run).toMatchObject({ code: 1, stdout: "" });
    expect(run.stderr).toContain("VERBATIM_API_KEY");
    expect(server?.requests).toEqual([]);
  });

  it("a wrong command line exits with 1; --help lists the exit codes and exits with 0", async () => {
    const wrong = await runCli(["transcript", videoId, "--format", "pdf"], {});
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain("Allowed choices are text, srt, vtt, json");
    const help = await runCli(["--help"], {});
    expect(help.code).toBe(0);
    for (const code of [0, 1, 2, 3, 4, 5, 9]) expect(help.stdout).toMatch(new RegExp(`^  ${code}  \\S`, "m"));
    expect(help.stdout).toContain("VERBATIM_API_KEY");
  });

  it("a reader that has closed the pipe ends the command quietly", async () => {
    const [command, ...args] = cli.command as [string, ...string[]];
    const child = spawn(command, [...args, "--help"], { stdio: ["ignore", "pipe", "pipe"] });
    // Closed before the process starts, so its first write meets a pipe without a reader.
    child.stdout.destroy();
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const [code] = await once(child, "close");
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
  });
});

describe("text from the server that holds a terminal's escape sequences", { timeout: 30_000 }, () => {
  // A transcript stored before the server removed control characters: OSC 52 writes the clipboard,
  // OSC 0 the window title, CSI 2J clears the screen, OSC 8 disguises a link; then a C1 CSI, BEL and DEL.
  const hostile =
    "ask not\u001b]52;c;aGk=\u0007 what\u001b]0;owned\u0007 your\u001b[2J country\u001b]8;;https://evil.example/\u001b\\can do\u001b]8;;\u001b\\ for\u009b2J you\u007f\r";
  const shown =
    "ask not\ufffd]52;c;aGk=\ufffd what\ufffd]0;owned\ufffd your\ufffd[2J country\ufffd]8;;https://evil.example/\ufffd\\can do\ufffd]8;;\ufffd\\ for\ufffd2J you\ufffd\ufffd";
  /** A control character other than the line feed: what nothing printed may hold. */
  const control = /[^\P{Cc}\n]/u;
  const hostileSegments = [{ start: 0, duration: 11, text: hostile }];

  it("prints text with each control character shown as U+FFFD", async () => {
    const env = await standIn([success({ ...transcriptFields, text: hostile })]);
    const run = await runCli(["transcript", videoId], env);
    expect(run).toMatchObject({ code: 0, stdout: `${shown}\n`, stderr: "" });
  });

  it("shows a terminal none of them", async () => {
    const env = await standIn([success({ ...transcriptFields, text: hostile })]);
    const run = await runCliOnTerminal(cli, ["transcript", videoId], env);
    expect(run.code).toBe(0);
    // The terminal ends lines with CR LF; nothing else it shows is a control character.
    expect(run.stdout).toBe(`${shown}\r\n`);
  });

  it("prints subtitles the server wrote with them as U+FFFD too", async () => {
    const subtitles = `1\n00:00:00,000 --> 00:00:11,000\n${hostile}\n\n`;
    const env = await standIn([success({ ...transcriptFields, format: "srt", subtitles })]);
    const run = await runCli(["transcript", videoId, "--format", "srt"], env);
    expect(run).toMatchObject({ code: 0, stdout: `1\n00:00:00,000 --> 00:00:11,000\n${shown}\n\n` });
  });

  it("prints JSON with each of them escaped, which parses to the server's data", async () => {
    const data = { ...transcriptFields, segments: hostileSegments };
    const env = await standIn([success(data)]);
    const run = await runCli(["transcript", videoId, "--format", "json"], env);
    expect(run.code).toBe(0);
    expect(run.stdout).not.toMatch(control);
    expect(JSON.parse(run.stdout)).toEqual(data);
  });

  it("prints an error message with them as U+FFFD", async () => {
    const failure = errorEnvelope("invalid_input", 3005) as { error: { message: string } };
    failure.error.message = hostile;
    const env = await standIn([{ status: 422, body: failure }]);
    const run = await runCli(["transcript", videoId], env);
    expect(run.code).toBe(3);
    expect(run.stderr.split("\n")[0]).toBe(`error: invalid_input (3005): ${shown}`);
    expect(run.stderr).not.toMatch(control);
  });
});
