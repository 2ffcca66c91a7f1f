import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IsolatedParser } from "../../src/adapters/parsing/isolated-parser.ts";
import { createLogger } from "../../src/logger.ts";
import { type EgressGuard, startEgressGuard } from "../../src/sources/egress/egress-guard.ts";
import type { CaptionTrack, SourceDetails } from "../../src/sources/platform-source.ts";
import { defaultYtdlpExtractors } from "../../src/sources/ytdlp/ytdlp-extractors.ts";
import { createYtdlpSidecar, type YtdlpSidecar } from "../../src/sources/ytdlp/ytdlp-sidecar.ts";
import { YtdlpSource } from "../../src/sources/ytdlp/ytdlp-source.ts";
import { FakeStreamable, readyProjectYtdlp } from "./harness.ts";

// YtdlpSource with the real sidecar and the real egress guard, whose upstream proxy is the fake
// platform's: what the guard does to a call decides what the source answers.

const captionMaxBytes = 100_000;

let fake: FakeStreamable;
let guard: EgressGuard;
let sidecar: YtdlpSidecar;
let parser: IsolatedParser;
let source: YtdlpSource;

const details: SourceDetails = {
  ref: { platform: "vimeo", url: "https://player.vimeo.com/video/76979871" },
  itemId: "76979871",
  url: "https://player.vimeo.com/video/76979871",
  title: null,
  channel: null,
  durationSeconds: null,
  publishedAt: null,
  language: "en",
  thumbnailUrl: null,
  captions: [],
  declaredAudioBytes: null,
  chapters: [],
};

function track(path: string): CaptionTrack {
  return { language: "en", kind: "manual", format: "vtt", url: `https://cdn.streamable.com${path}` };
}

/** WebVTT of `bytes` bytes or a little more, in one-second cues. */
function longVtt(bytes: number): string {
  const cues = ["WEBVTT\n"];
  let length = cues[0]?.length ?? 0;
  for (let second = 0; length < bytes; second += 1) {
    const at = (seconds: number) => new Date(seconds * 1000).toISOString().slice(11, 23);
    cues.push(`${at(second)} --> ${at(second + 1)}\nask not what your country can do for you\n`);
    length += cues.at(-1)?.length ?? 0;
  }
  return cues.join("\n");
}

beforeAll(async () => {
  const logger = createLogger("silent");
  fake = await FakeStreamable.start();
  guard = await startEgressGuard({
    allowPrivateTargets: false,
    upstreamProxyUrls: [fake.proxyUrl("upstream")],
    logger,
  });
  sidecar = createYtdlpSidecar({ ...readyProjectYtdlp(), caFile: fake.certificates.caFile, logger });
  parser = new IsolatedParser();
  source = new YtdlpSource({
    engine: sidecar,
    absentAdvice: "",
    egress: guard,
    parser,
    allowedExtractors: defaultYtdlpExtractors,
    captionMaxBytes,
    downloadMaxBytes: 1_000_000,
    downloadTimeoutMs: 30_000,
  });
}, 180_000);

afterAll(async () => {
  await sidecar?.close();
  await guard?.close();
  await parser?.close();
  await fake?.close();
});

describe("YtdlpSource through the egress guard", () => {
  it("reads a caption file within the byte cap", async () => {
    fake.route("/captions/short.vtt", (_req, res) => {
      res.writeHead(200, { "content-type": "text/vtt" }).end(longVtt(1_000));
    });
    const captions = await source.captions(details, track("/captions/short.vtt"));
    expect(captions?.segments[0]).toMatchObject({ text: "ask not what your country can do for you" });
  });

  it("fails with too_large when the guard ends a caption file at the byte cap, though its end looked like any other", async () => {
    // No Content-Length and no chunks: the body ends where the connection does, so the reader
    // cannot tell the guard's cut from the file's end.
    fake.route("/captions/unsized.vtt", (_req, res) => {
      res.socket?.end(
        `HTTP/1.1 200 OK\r\ncontent-type: text/vtt\r\nconnection: close\r\n\r\n${longVtt(3 * captionMaxBytes)}`,
      );
    });
    await expect(source.captions(details, track("/captions/unsized.vtt"))).rejects.toMatchObject({
      kind: "too_large",
    });
  });
});
