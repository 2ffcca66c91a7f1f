import { execFile } from "node:child_process";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The package users get: `pnpm pack` (which builds it), installed from the tarball into a project
// outside the workspace, where no workspace link or TypeScript source can stand in for it.
const run = promisify(execFile);
const sdkRoot = join(dirname(fileURLToPath(import.meta.url)), "..");
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const packageJson = createRequire(import.meta.url)("../package.json") as { version: string };

let project: string;

beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), "verbatim-sdk-consumer-"));
  await run("pnpm", ["pack", "--pack-destination", project], { cwd: sdkRoot });
  const [tarball] = (await readdir(project)).filter((name) => name.endsWith(".tgz"));
  if (!tarball) throw new Error("pnpm pack wrote no tarball");
  await writeFile(join(project, "package.json"), JSON.stringify({ name: "consumer", private: true }));
  await run("npm", ["install", "--no-audit", "--no-fund", "--ignore-scripts", `./${tarball}`], { cwd: project });
}, 180_000);

afterAll(async () => {
  if (project) await rm(project, { recursive: true, force: true });
});

describe("the packed SDK", () => {
  it("loads with import, and its client works without a server for what needs none", async () => {
    const script = [
      'import { Verbatim, toSrt, RequestError, ApiError, sdkVersion } from "@verbatim/sdk";',
      'const client = new Verbatim({ apiKey: "vb_live_x", baseUrl: "http://127.0.0.1:1" });',
      'console.log(JSON.stringify({ baseUrl: client.baseUrl, sdkVersion, family: new RequestError({ code: "not_found", number: 1301, message: "m", docs: "d" }, { status: 404, requestId: null, retryAfter: null }) instanceof ApiError, srt: toSrt([{ start: 0, duration: 1, text: "hi" }]) }));',
    ].join("\n");
    await writeFile(join(project, "esm.mjs"), script);
    const { stdout } = await run("node", ["esm.mjs"], { cwd: project });
    expect(JSON.parse(stdout)).toEqual({
      baseUrl: "http://127.0.0.1:1/api/v2",
      sdkVersion: packageJson.version,
      family: true,
      srt: "1\n00:00:00,000 --> 00:00:01,000\nhi\n\n",
    });
  });

  it("loads with require", async () => {
    const script = [
      'const { Verbatim, verifyWebhook, WebhookVerificationError } = require("@verbatim/sdk");',
      "let refused = false;",
      'try { verifyWebhook("{}", {}, "whsec_c2VjcmV0"); } catch (error) { refused = error instanceof WebhookVerificationError; }',
      'console.log(JSON.stringify({ client: typeof new Verbatim({ apiKey: "k" }).transcripts.video, refused }));',
    ].join("\n");
    await writeFile(join(project, "cjs.cjs"), script);
    const { stdout } = await run("node", ["cjs.cjs"], { cwd: project });
    expect(JSON.parse(stdout)).toEqual({ client: "function", refused: true });
  });

  it("runs its command line as `npx @verbatim/sdk`", { timeout: 60_000 }, async () => {
    const { stdout } = await run("npx", ["--no", "@verbatim/sdk", "--", "--help"], { cwd: project });
    expect(stdout).toContain("Usage: verbatim [options] [command]");
    expect(stdout).toMatch(/^ {2}4 {2}the content gives no transcript/m);
    const { VERBATIM_API_KEY: _key, ...withoutKey } = process.env;
    const refused = await run("npx", ["--no", "@verbatim/sdk", "--", "search", "zoo"], {
      cwd: project,
      env: withoutKey,
    }).catch((error: { code: number; stderr: string }) => error);
    expect(refused).toMatchObject({ code: 1, stderr: expect.stringContaining("VERBATIM_API_KEY") });
  });

  it("type-checks a consumer against its declarations, and rejects a wrong use", { timeout: 60_000 }, async () => {
    const consumer = [
      'import { Verbatim, type ErrorCode, type FinishedTranscriptResult, ContentError } from "@verbatim/sdk";',
      "const verbatim = new Verbatim();",
      "export async function text(video: string): Promise<string | undefined> {",
      "  const result: FinishedTranscriptResult = await verbatim.transcripts.video({ video }, { wait: true });",
      "  return result.data.text;",
      "}",
      'export function branch(error: unknown): ErrorCode | "other" {',
      '  return error instanceof ContentError && error.code === "no_captions" ? error.code : "other";',
      "}",
      "export async function firstPage() {",
      '  for await (const row of verbatim.transcripts.channelVideos({ channel: "@jawed" })) return row;',
      "}",
    ].join("\n");
    await writeFile(join(project, "consumer.ts"), consumer);
    await writeFile(
      join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          module: "NodeNext",
          moduleResolution: "NodeNext",
          target: "ES2022",
          strict: true,
          noEmit: true,
          types: [],
        },
        files: ["consumer.ts"],
      }),
    );
    await run("node", [tsc, "-p", "tsconfig.json"], { cwd: project });

    await writeFile(join(project, "consumer.ts"), `${consumer}\nawait verbatim.transcripts.video({ url: "x" });\n`);
    const refused = await run("node", [tsc, "-p", "tsconfig.json"], { cwd: project }).catch(
      (error: { stdout: string }) => error,
    );
    expect((refused as { stdout: string }).stdout).toContain("consumer.ts");
  });
});
