import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Verbatim } from "@verbatim/sdk";
import { startVerbatim, type VerbatimService } from "@verbatim/testkit";
import { FakeYoutube } from "@verbatim/testkit/fake-youtube";
import { type NodeCue, parseSync } from "subtitle";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportSubtitles } from "../src/export-srt.ts";

const run = promisify(execFile);
const examplePackage = fileURLToPath(new URL("..", import.meta.url));
const surfaceGo = "GJLlxj_dtq8";

let youtube: FakeYoutube;
let server: VerbatimService;
let outDir: string;
beforeAll(async () => {
  youtube = await FakeYoutube.start();
  youtube.serveRecordedVideos();
  server = await startVerbatim({ from: import.meta.url, youtube, credits: 10 });
  outDir = await mkdtemp(join(tmpdir(), "verbatim-export-srt-"));
});
afterAll(async () => {
  await server?.close();
  await youtube?.close();
  await rm(outDir, { recursive: true, force: true });
});

function cues(subtitles: string) {
  return parseSync(subtitles)
    .filter((node): node is NodeCue => node.type === "cue")
    .map(({ data }) => ({ start: data.start, end: data.end, text: data.text }));
}

/** WebVTT's character references, which the `subtitle` package leaves as written. */
function decodeVttText(text: string): string {
  return text.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&amp;", "&");
}

describe("the export-srt example", () => {
  it("writes .srt, .vtt and .txt files that read back as the transcript's segments", async () => {
    const verbatim = new Verbatim({ apiKey: server.apiKey, baseUrl: server.baseUrl });
    const { data } = await verbatim.transcripts.video({ video: surfaceGo }, { wait: true });
    const segments = data.segments ?? [];
    expect(segments.length).toBeGreaterThan(0);

    const lines: string[] = [];
    const dir = join(outDir, "api");
    const files = await exportSubtitles(verbatim, { video: surfaceGo, outDir: dir, print: (line) => lines.push(line) });
    expect(files).toEqual({
      srt: join(dir, `${surfaceGo}.srt`),
      vtt: join(dir, `${surfaceGo}.vtt`),
      txt: join(dir, `${surfaceGo}.txt`),
    });

    const expected = segments.map((segment) => ({
      start: Math.round(segment.start * 1000),
      end: Math.round((segment.start + segment.duration) * 1000),
      text: segment.text,
    }));
    expect(cues(await readFile(files.srt, "utf8"))).toEqual(expected);
    const vtt = await readFile(files.vtt, "utf8");
    expect(vtt.startsWith("WEBVTT\n\n")).toBe(true);
    expect(cues(vtt).map((cue) => ({ ...cue, text: decodeVttText(cue.text) }))).toEqual(expected);
    const txt = (await readFile(files.txt, "utf8")).trimEnd().split("\n");
    expect(txt).toHaveLength(segments.length);
    expect(txt[0]).toBe(`[00:00] ${segments[0]?.text.replace(/\s+/g, " ").trim()}`);
    expect(lines).toEqual([
      expect.stringMatching(new RegExp(`^.+: ${segments.length} segments from captions, 1 credit spent$`)),
      `wrote ${files.srt}`,
      `wrote ${files.vtt}`,
      `wrote ${files.txt}`,
    ]);
  });

  it("runs as `pnpm start <video> --out <directory>`", async () => {
    const dir = join(outDir, "cli");
    const { stdout } = await run(process.execPath, ["--import", "tsx", "src/main.ts", surfaceGo, "--out", dir], {
      cwd: examplePackage,
      env: { ...process.env, VERBATIM_API_KEY: server.apiKey, VERBATIM_BASE_URL: server.baseUrl },
    });
    expect(stdout).toContain(`wrote ${join(dir, `${surfaceGo}.srt`)}`);
    expect((await readdir(dir)).sort()).toEqual([`${surfaceGo}.srt`, `${surfaceGo}.txt`, `${surfaceGo}.vtt`]);
  });
});
