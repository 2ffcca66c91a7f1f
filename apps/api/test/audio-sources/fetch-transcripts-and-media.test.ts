import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { audioFixture, type FakePodcastHost, startFakePodcastHost } from "@verbatim/testkit/fake-podcast-host";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type {
  AudioSourcesConfig,
  PublisherTranscriptLink,
  ResolvedAudioSource,
} from "../../src/adapters/audio-sources/index.ts";
import { closing, failure, testAudioSources } from "./helpers.ts";

let host: FakePodcastHost;
let workDir: string;
const audioSources = closing(testAudioSources);

/** A logger whose lines the test reads. */
function recordingLogger(): { logger: AudioSourcesConfig["logger"]; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(JSON.parse(chunk.toString("utf8")) as Record<string, unknown>);
      callback();
    },
  });
  return { logger: pino({ level: "info" }, sink), lines };
}

function sourceWith(
  links: PublisherTranscriptLink[],
  declaredDurationSeconds: number | null = null,
): ResolvedAudioSource {
  return {
    platform: "podcast",
    videoId: "pod_0000000000000000",
    url: host.url("/episode"),
    title: "Episode",
    channel: "Show",
    declaredDurationSeconds,
    declaredBytes: null,
    thumbnailUrl: null,
    language: "en",
    mediaUrl: host.url("/media/jfk.wav"),
    podcast: null,
    publisherTranscripts: links,
    notes: null,
  };
}

const link = (path: string, type: string, language: string | null = "en"): PublisherTranscriptLink => ({
  url: host.url(path),
  type,
  language,
  rel: null,
});

beforeAll(async () => {
  host = await startFakePodcastHost();
  workDir = mkdtempSync(join(tmpdir(), "verbatim-audio-sources-"));
  host.serveFixture("/t/example.srt", "podcast-namespace/example.srt", "application/x-subrip");
  host.serveFixture("/t/example.vtt", "podcast-namespace/example.vtt", "text/vtt");
  host.serveFixture("/t/example.json", "podcast-namespace/example.json", "application/json");
  host.serveFixture("/t/example.html", "podcast-namespace/example.html", "text/html");
  host.serveFixture("/t/wordless.json", "podcast-namespace/history-f455271/example.json", "application/json");
  host.serve("/t/example.txt", {
    body: Buffer.from("Caf\xe9 talk, all of it.", "latin1"),
    contentType: "text/plain; charset=iso-8859-1",
  });
  host.fail("/t/missing.vtt", 404);
  host.serveFile("/media/jfk.wav", audioFixture("whisper-cpp/jfk.wav"), "audio/wav");
  host.trickle("/media/endless.mp3", { chunkBytes: 16_384, chunks: 1_000, intervalMs: 5, contentType: "audio/mpeg" });
  host.trickle("/media/slow.mp3", { chunkBytes: 1_024, chunks: 1_000, intervalMs: 100, contentType: "audio/mpeg" });
  host.fail("/media/gone.mp3", 404);
  host.redirect("/media/elsewhere.wav", "/media/jfk.wav");
  host.serveFixture("/feeds/pc20.xml", "podcast-partytime/pc20rss.xml", "application/rss+xml", {
    replace: { "https://mp3s.nashownotes.com/": host.url("/nashownotes/") },
  });
  host.serveFixture("/nashownotes/PC20-57-Captions.srt", "podcast-namespace/example.srt", "application/srt");
});

afterAll(async () => {
  await audioSources.closeAll();
  await host.close();
  rmSync(workDir, { recursive: true, force: true });
});

describe("publisherTranscript", () => {
  it("fetches the feed's SRT captions of a resolved episode", async () => {
    const sources = audioSources();
    const source = await sources.resolve(host.url("/feeds/pc20.xml"));
    const transcript = await sources.publisherTranscript(source);
    expect(transcript).toMatchObject({
      format: "srt",
      language: "en",
      url: host.url("/nashownotes/PC20-57-Captions.srt"),
      speakers: ["Travis", "Sarah", "Gilon"],
    });
    expect(transcript?.segments).toHaveLength(222);
    expect(transcript?.segments[0]).toEqual({
      start: 0.179,
      duration: 2.22,
      text: "When you first get started in podcasting, it's",
      speaker: 0,
    });
  });

  it.each([
    [
      "/t/example.vtt",
      "text/vtt",
      "vtt",
      ["Sarah", "Gillian"],
      "careers podcast. My question is, do we need a podcast trailer?",
    ],
    ["/t/example.json", "application/json", "json", ["Darth Vader", "Luke"], "Nooooo"],
    [
      "/t/example.html",
      "text/html",
      "html",
      ["Travis", "Sarah", "Gilon"],
      expect.stringMatching(/batch your episodes\.$/),
    ],
    ["/t/example.txt", "text/plain", "text", null, "Café talk, all of it."],
  ])("parses %s (%s)", async (path, type, format, speakers, lastText) => {
    const transcript = await audioSources().publisherTranscript(sourceWith([link(path, type)], 755));
    expect(transcript).toMatchObject({ format, speakers, url: host.url(path), language: "en" });
    expect(transcript?.segments.at(-1)?.text).toEqual(lastText);
  });

  it("moves on past a link that answers 404 and one that does not parse, logging why", async () => {
    const { logger, lines } = recordingLogger();
    const transcript = await audioSources({ logger }).publisherTranscript(
      sourceWith([
        link("/t/missing.vtt", "text/vtt"),
        link("/t/wordless.json", "application/json"),
        link("/t/example.vtt", "text/vtt"),
      ]),
    );
    expect(transcript?.url).toBe(host.url("/t/example.vtt"));
    expect(lines).toEqual([
      expect.objectContaining({
        msg: "publisher transcript unavailable",
        status: 404,
        url: host.url("/t/missing.vtt"),
      }),
      expect.objectContaining({
        msg: "publisher transcript does not parse",
        reason: "the json transcript holds no text",
        url: host.url("/t/wordless.json"),
      }),
    ]);
  });

  it("answers null when no link parses, so the caller falls back to speech recognition", async () => {
    expect(
      await audioSources().publisherTranscript(sourceWith([link("/t/wordless.json", "application/json")])),
    ).toBeNull();
    expect(await audioSources().publisherTranscript(sourceWith([]))).toBeNull();
  });

  it("answers null, logging the refusal, for a transcript on a private address", async () => {
    const { logger, lines } = recordingLogger();
    const sources = audioSources({ allowPrivateTargets: false, logger });
    expect(await sources.publisherTranscript(sourceWith([link("/t/example.vtt", "text/vtt")]))).toBeNull();
    expect(lines[0]).toMatchObject({ msg: "publisher transcript could not be fetched" });
  });
});

describe("download", () => {
  it("streams a media file to disk, following redirects", async () => {
    const destination = join(workDir, "jfk.wav");
    const downloaded = await audioSources().download(host.url("/media/elsewhere.wav"), destination);
    const original = readFileSync(audioFixture("whisper-cpp/jfk.wav"));
    expect(downloaded).toEqual({ bytes: original.length, contentType: "audio/wav" });
    expect(readFileSync(destination).equals(original)).toBe(true);
  });

  it("refuses a file whose Content-Length exceeds the limit with 422 audio_ineligible (3004), writing nothing", async () => {
    const destination = join(workDir, "too-big.wav");
    const error = await failure(
      audioSources({ downloadMaxBytes: 100_000 }).download(host.url("/media/jfk.wav"), destination),
    );
    expect([error.status, error.code, error.number]).toEqual([422, "audio_ineligible", 3004]);
    expect(error.message).toBe(
      `The media at ${host.url("/media/jfk.wav")} is larger than 0.1 MiB, the most downloaded (VERBATIM_DOWNLOAD_MAX_BYTES).`,
    );
    expect(existsSync(destination)).toBe(false);
  });

  it("stops a body without Content-Length at the limit and removes the partial file", async () => {
    const destination = join(workDir, "endless.mp3");
    const error = await failure(
      audioSources({ downloadMaxBytes: 200_000 }).download(host.url("/media/endless.mp3"), destination),
    );
    expect([error.code, error.number]).toEqual(["audio_ineligible", 3004]);
    expect(existsSync(destination)).toBe(false);
  });

  it("answers 503 timeout (5002) past the time limit and removes the partial file", async () => {
    const destination = join(workDir, "slow.mp3");
    const error = await failure(
      audioSources({ downloadTimeoutMs: 400 }).download(host.url("/media/slow.mp3"), destination),
    );
    expect([error.status, error.code, error.number]).toEqual([503, "timeout", 5002]);
    expect(error.message).toBe(
      `The media at ${host.url("/media/slow.mp3")} did not download within 0.4 s (VERBATIM_DOWNLOAD_TIMEOUT_MS).`,
    );
    expect(existsSync(destination)).toBe(false);
  });

  it("answers 503 upstream_error (5001) when the media answers 404", async () => {
    const error = await failure(audioSources().download(host.url("/media/gone.mp3"), join(workDir, "gone.mp3")));
    expect([error.status, error.code, error.number]).toEqual([503, "upstream_error", 5001]);
    expect(error.message).toBe(
      `127.0.0.1:${host.port} answered HTTP 404 for the media ${host.url("/media/gone.mp3")}.`,
    );
  });

  it("refuses media on a private address with 422 invalid_input (3005)", async () => {
    const destination = join(workDir, "private.wav");
    const error = await failure(
      audioSources({ allowPrivateTargets: false }).download(host.url("/media/jfk.wav"), destination),
    );
    expect([error.code, error.number]).toEqual(["invalid_input", 3005]);
    expect(existsSync(destination)).toBe(false);
  });

  it("keeps the file it wrote, of the size it reports", async () => {
    const destination = join(workDir, "size.wav");
    const { bytes } = await audioSources().download(host.url("/media/jfk.wav"), destination);
    expect(statSync(destination).size).toBe(bytes);
  });
});
