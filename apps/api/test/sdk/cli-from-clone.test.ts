import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Verbatim } from "@verbatim/sdk";
import { recordedVideos } from "@verbatim/testkit/fake-youtube";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sdkFor } from "../support/sdk.ts";
import { serverStartTimeoutMs, startYoutubeServer, type YoutubeTestServer } from "../support/youtube-server.ts";

// The README's command lines as a new user runs them from a clone: read from the README, run by a
// shell in the repository (the workspace's own install stands in for the clone's `pnpm install`),
// against a live server. Only the link changes, to a video the fake YouTube has recorded.

const repositoryRoot = join(dirname(fileURLToPath(import.meta.url)), "../../../..");
const documentedCommand = /^(?<invocation>\S.*) transcript jNQXAC9IVRw --format srt$/gm;

let youtube: YoutubeTestServer;
let verbatim: Verbatim;
let nodeCommand: string;
let pythonCommand: string;

beforeAll(async () => {
  const readme = await readFile(join(repositoryRoot, "README.md"), "utf8");
  const invocations = [...readme.matchAll(documentedCommand)].map((match) => match.groups?.invocation ?? "");
  nodeCommand = invocations.find((invocation) => invocation.startsWith("npx ")) ?? "";
  pythonCommand = invocations.find((invocation) => invocation.endsWith(" -m verbatim")) ?? "";
  // The Python SDK's environment, as the README has a new user make it.
  const environment = await inShell("node scripts/python-env.mjs", repositoryRoot, {});
  if (environment.code !== 0) throw new Error(`node scripts/python-env.mjs failed: ${environment.stderr}`);
  youtube = await startYoutubeServer();
  youtube.fake.serveRecordedVideos();
  verbatim = sdkFor(youtube.server);
}, 4 * serverStartTimeoutMs);
afterAll(async () => {
  await youtube?.close();
});

interface ShellRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `commandLine` with `sh` in `cwd`, as a user's terminal would: the environment of this
 * process without what pnpm, npm and vitest set for the test run (their variables, the workspace's
 * node_modules/.bin on the PATH) and without VERBATIM_ settings but `env`.
 */
function inShell(commandLine: string, cwd: string, env: Record<string, string>): Promise<ShellRun> {
  const inherited = Object.entries(process.env).filter(
    ([name]) => !/^(npm_|pnpm_|verbatim_|vitest|node_options$)/i.test(name),
  );
  const path = (process.env.PATH ?? "")
    .split(delimiter)
    .filter((entry) => !entry.includes("node_modules"))
    .join(delimiter);
  return new Promise((resolve, reject) => {
    execFile(
      "sh",
      ["-c", commandLine],
      { cwd, env: { ...Object.fromEntries(inherited), PATH: path, ...env }, timeout: 120_000 },
      (error, stdout, stderr) => {
        // A string code is the shell's own failure to start (ENOENT); a number, its exit status.
        const code = error === null ? 0 : error.code;
        if (typeof code === "string") reject(error);
        else resolve({ code: code ?? null, stdout, stderr });
      },
    );
  });
}

function account(): Record<string, string> {
  return { VERBATIM_API_KEY: youtube.server.key.key, VERBATIM_BASE_URL: youtube.server.baseUrl };
}

/** The SubRip the server answers for the captioned recording. */
async function serverSubrip(): Promise<string> {
  const { data } = await verbatim.transcripts.video({ video: recordedVideos.captioned, format: "srt" });
  if (data.kind !== "transcript" || data.subtitles === undefined) throw new Error(JSON.stringify(data));
  return data.subtitles;
}

describe("the README's command lines from a clone", { timeout: 120_000 }, () => {
  it("gives one for the Node SDK and one for the Python SDK's environment", () => {
    expect(nodeCommand).toBe("npx @verbatim/sdk");
    expect(pythonCommand).toBe("packages/sdk-python/.venv/bin/python -m verbatim");
  });

  it.each([
    ["the root", "."],
    ["packages/sdk", "packages/sdk"],
  ])("npx @verbatim/sdk prints the server's SubRip, run in %s", async (_, folder) => {
    const run = await inShell(
      `${nodeCommand} transcript ${recordedVideos.captioned} --format srt`,
      join(repositoryRoot, folder),
      account(),
    );
    expect(run).toEqual({ code: 0, stdout: await serverSubrip(), stderr: "" });
  });

  it("python -m verbatim, in the Python SDK's environment, prints the server's SubRip", async () => {
    const run = await inShell(
      `${pythonCommand} transcript ${recordedVideos.captioned} --format srt`,
      repositoryRoot,
      account(),
    );
    expect(run).toEqual({ code: 0, stdout: await serverSubrip(), stderr: "" });
  });

  it("both exit with 4 for a video taken down, its content error on stderr", async () => {
    for (const invocation of [nodeCommand, pythonCommand]) {
      const run = await inShell(`${invocation} transcript ${recordedVideos.takenDown}`, repositoryRoot, account());
      expect(run, invocation).toMatchObject({ code: 4, stdout: "" });
      expect(run.stderr, invocation).toMatch(/[a-z_]+ \(4\d{3}\)/);
    }
  });

  // A workspace where the SDK was packed (its own tests do) has dist/, which a clone has not: the
  // command npx runs must be one a clone holds.
  it("runs a bin the repository holds, not a build's output", async () => {
    const manifest = JSON.parse(await readFile(join(repositoryRoot, "packages/sdk/package.json"), "utf8"));
    const bins = Object.values(manifest.bin as Record<string, string>);
    expect(bins).toHaveLength(1);
    const tracked = await inShell(`git ls-files --error-unmatch ${bins[0]}`, join(repositoryRoot, "packages/sdk"), {});
    expect(tracked).toMatchObject({ code: 0, stdout: `${bins[0]?.replace(/^\.\//, "")}\n` });
  });
});
