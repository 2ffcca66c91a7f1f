import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ConnectProxy, startConnectProxy } from "@verbatim/testkit/connect-proxy";
import { audioFixture } from "@verbatim/testkit/fake-podcast-host";
import { FakeYoutube, fixture, fromFixture } from "@verbatim/testkit/fake-youtube";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DownloadCapReached, withDownloadDefaults } from "../../src/adapters/net/media-download.ts";
import { type StreamDownloadConfig, YoutubeiAudioSource } from "../../src/adapters/youtube/audio-streams.ts";
import type { RoutedStream } from "../../src/adapters/youtube/index.ts";
import { createYoutubeAdapter } from "../../src/adapters/youtube/index.ts";
import { readPlayerResponse } from "../../src/adapters/youtube/player-response.ts";
import { UpstreamError } from "../../src/adapters/youtube/upstream-errors.ts";
import type { ApiError } from "../../src/errors.ts";
import { isAnswerable, toApiError } from "../../src/services/failures/source-failures.ts";

const itag = 139;
/** A stream three times the test file. */
const largeItag = 251;
const tricklingItag = 249;
const chunkBytes = 16 * 1024;

/** The `ApiError` a download's rejection answers. */
async function failure(download: Promise<unknown>): Promise<ApiError> {
  const error = await download.then(
    () => new Error("the download succeeded"),
    (reason: unknown) => reason,
  );
  if (!isAnswerable(error)) throw error;
  return toApiError(error);
}

describe("readPlayerResponse: the audio streams worth transcribing", () => {
  it("keeps the plain-address audio-only streams without DRC copies, lowest bitrate first", () => {
    const video = readPlayerResponse(
      JSON.parse(fixture("youtube-transcript-api/youtube.innertube.json.static")),
      "GJLlxj_dtq8",
    );
    expect(video.audioStreams.map((stream) => stream.itag)).toEqual([139, 249, 250, 140, 251]);
    expect(video.audioStreams[0]).toMatchObject({
      mimeType: 'audio/mp4; codecs="mp4a.40.5"',
      bitrate: 49994,
      contentLength: 1928949,
      url: expect.stringMatching(/^https:\/\/rr4---sn-4g5edndl\.googlevideo\.com\/videoplayback\?/),
    });
  });

  it("takes the original track of a dubbed video, and skips ciphered streams", () => {
    const player = JSON.parse(fixture("youtube-transcript-api/youtube.innertube.json.static"));
    player.streamingData.adaptiveFormats = [
      {
        itag: 139,
        mimeType: "audio/mp4",
        bitrate: 48_000,
        url: "https://a/dub",
        audioTrack: { audioIsDefault: false },
      },
      { itag: 249, mimeType: "audio/webm", bitrate: 50_000, signatureCipher: "s=x&url=https%3A%2F%2Fb" },
      {
        itag: 140,
        mimeType: "audio/mp4",
        bitrate: 128_000,
        url: "https://a/orig",
        audioTrack: { audioIsDefault: true },
      },
      { itag: 18, mimeType: "video/mp4", bitrate: 30_000, url: "https://a/video" },
    ];
    const video = readPlayerResponse(player, "GJLlxj_dtq8");
    expect(video.audioStreams.map((stream) => stream.url)).toEqual(["https://a/orig"]);
  });
});

describe("YoutubeiAudioSource.download: ranged reads through the media origin", () => {
  let fake: FakeYoutube;
  let media: Buffer;
  let dir: string;

  beforeAll(async () => {
    fake = await FakeYoutube.start();
    media = await readFile(audioFixture("whisper-cpp/jfk.mp3"));
    fake.videoplayback(itag, media);
  });
  afterAll(() => fake?.close());
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "verbatim-stream-test-"));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const source = (config: Partial<StreamDownloadConfig> = {}) =>
    new YoutubeiAudioSource([{ innertube: () => Promise.reject(new Error("no player call in these tests")) }], {
      mediaOrigin: fake.origin,
      ...withDownloadDefaults({ downloadMaxBytes: 10 * 1024 * 1024, downloadTimeoutMs: 10_000 }),
      chunkTimeoutMs: 2_000,
      chunkBytes,
      ...config,
    });
  const stream = (contentLength: number | null, streamItag = itag): RoutedStream => ({
    url: `https://rr4---sn-4g5edndl.googlevideo.com/videoplayback?expire=1749676582&itag=${streamItag}&source=youtube`,
    itag: streamItag,
    mimeType: "audio/mpeg",
    bitrate: 48_000,
    contentLength,
    route: 0,
  });

  it("reads the whole stream in consecutive ranges of the chunk size, on the media origin", async () => {
    const before = fake.requestsTo("/videoplayback").length;
    const path = join(dir, "media");
    const downloaded = await source().download(stream(media.length), path);
    expect(downloaded).toEqual({ bytes: media.length, contentType: "audio/mpeg" });
    expect((await readFile(path)).equals(media)).toBe(true);
    const requests = fake.requestsTo("/videoplayback").slice(before);
    const chunks = Math.ceil(media.length / chunkBytes);
    expect(requests.map((request) => request.query.get("range"))).toEqual(
      Array.from({ length: chunks }, (_, index) => `${index * chunkBytes}-${(index + 1) * chunkBytes - 1}`),
    );
    expect(requests.every((request) => request.query.get("expire") === "1749676582")).toBe(true);
    // Uncompressed, as other media: the limit counts what is written, and the wire carries no more.
    expect(new Set(requests.map((request) => request.headers["accept-encoding"]))).toEqual(new Set(["identity"]));
  });

  it("without a declared length, reads until a range comes back short", async () => {
    const path = join(dir, "media");
    const downloaded = await source().download(stream(null), path);
    expect(downloaded.bytes).toBe(media.length);
    expect((await readFile(path)).equals(media)).toBe(true);
  });

  it("without a declared length, a stream ending on a chunk boundary ends at the 416 past its end", async () => {
    const exact = media.subarray(0, 2 * chunkBytes);
    fake.videoplayback(140, exact);
    const path = join(dir, "media");
    const downloaded = await source().download(stream(null, 140), path);
    expect(downloaded.bytes).toBe(exact.length);
    expect((await readFile(path)).equals(exact)).toBe(true);
  });

  it("refuses a stream declared larger than VERBATIM_DOWNLOAD_MAX_BYTES with 422 audio_ineligible (3004), as other media, reading nothing", async () => {
    const before = fake.requestsTo("/videoplayback").length;
    const error = await failure(source({ downloadMaxBytes: 100_000 }).download(stream(200_000), join(dir, "media")));
    expect([error.status, error.code, error.number]).toEqual([422, "audio_ineligible", 3004]);
    expect(error.message).toBe(
      "The audio stream is larger than 0.1 MiB, the most downloaded (VERBATIM_DOWNLOAD_MAX_BYTES).",
    );
    expect(fake.requestsTo("/videoplayback").length).toBe(before);
  });

  it("stops a stream that turns out larger than VERBATIM_DOWNLOAD_MAX_BYTES while it downloads, with 422 audio_ineligible (3004), removing the partial file", async () => {
    fake.videoplayback(largeItag, Buffer.concat([media, media, media]));
    const path = join(dir, "media");
    const error = await failure(source({ downloadMaxBytes: 100_000 }).download(stream(null, largeItag), path));
    expect([error.status, error.code, error.number]).toEqual([422, "audio_ineligible", 3004]);
    expect(error.message).toBe(
      "The audio stream is larger than 0.1 MiB, the most downloaded (VERBATIM_DOWNLOAD_MAX_BYTES).",
    );
    expect(existsSync(path)).toBe(false);
  });

  it("stops at the caller's own lower cap (an inline attempt) with DownloadCapReached, before the stream's end", async () => {
    const before = fake.requestsTo("/videoplayback").length;
    const refusal = source().download(stream(null), join(dir, "media"), { maxBytes: chunkBytes + 1 });
    await expect(refusal).rejects.toBeInstanceOf(DownloadCapReached);
    await expect(refusal).rejects.toMatchObject({ maxBytes: chunkBytes + 1 });
    expect((await failure(refusal)).code).toBe("audio_ineligible");
    expect(fake.requestsTo("/videoplayback").length - before).toBeLessThan(Math.ceil(media.length / chunkBytes));
  });

  it("refuses a stream declared larger than the caller's own cap with DownloadCapReached before reading it", async () => {
    const before = fake.requestsTo("/videoplayback").length;
    const refusal = source().download(stream(media.length), join(dir, "media"), { maxBytes: 1024 });
    await expect(refusal).rejects.toBeInstanceOf(DownloadCapReached);
    expect(fake.requestsTo("/videoplayback").length).toBe(before);
  });

  it("fails a stream trickling below VERBATIM_DOWNLOAD_MIN_BYTES_PER_SECOND with 503 timeout (5002), as other media", async () => {
    // 100 bytes a second, with pauses far shorter than the chunk timeout: only the floor can end it.
    fake.videoplayback(tricklingItag, media, { trickle: { pieceBytes: 10, intervalMs: 100 } });
    const path = join(dir, "media");
    const error = await failure(
      source({ downloadFloor: { bytesPerSecond: 1_000, windowSeconds: 1 }, chunkTimeoutMs: 5_000 }).download(
        stream(media.length, tricklingItag),
        path,
      ),
    );
    expect([error.status, error.code, error.number]).toEqual([503, "timeout", 5002]);
    expect(error.message).toBe(
      "The audio stream came slower than 1000 bytes per second over 1 s (VERBATIM_DOWNLOAD_MIN_BYTES_PER_SECOND).",
    );
    expect(existsSync(path)).toBe(false);
  });

  it("fails a download still running after VERBATIM_DOWNLOAD_TIMEOUT_MS with 503 timeout (5002), as other media", async () => {
    fake.videoplayback(tricklingItag, media, { trickle: { pieceBytes: 1_000, intervalMs: 100 } });
    const error = await failure(
      source({ downloadTimeoutMs: 400 }).download(stream(media.length, tricklingItag), join(dir, "media")),
    );
    expect([error.status, error.code, error.number]).toEqual([503, "timeout", 5002]);
    expect(error.message).toBe("The audio stream did not download within 0.4 s (VERBATIM_DOWNLOAD_TIMEOUT_MS).");
  });

  it("waits out pauses shorter than the chunk timeout however long the chunk takes: the pace is the floor's to judge", async () => {
    // 32 pieces 50 ms apart: the chunk takes longer than its timeout, its pauses far less.
    fake.videoplayback(tricklingItag, media.subarray(0, chunkBytes), { trickle: { pieceBytes: 512, intervalMs: 50 } });
    const downloaded = await source({ chunkTimeoutMs: 1_000 }).download(
      stream(chunkBytes, tricklingItag),
      join(dir, "media"),
    );
    expect(downloaded.bytes).toBe(chunkBytes);
  });

  it("a 403 from the media server is a block (an expired address, or one bound to another IP)", async () => {
    fake.videoplayback(250, Buffer.from("Forbidden"), { status: 403, contentType: "text/plain" });
    const refusal = source().download(stream(media.length, 250), join(dir, "media"));
    await expect(refusal).rejects.toBeInstanceOf(UpstreamError);
    await expect(refusal).rejects.toMatchObject({ kind: "blocked", status: 403 });
  });

  it("a stream cut off mid-body is a connection failure", async () => {
    const cutting = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "audio/mpeg", "content-length": String(chunkBytes) });
      response.write(media.subarray(0, 1000), () => response.destroy());
    });
    const origin = await listenOnLoopback(cutting);
    try {
      const refusal = source({ mediaOrigin: origin }).download(stream(media.length), join(dir, "media"));
      await expect(refusal).rejects.toBeInstanceOf(UpstreamError);
      await expect(refusal).rejects.toMatchObject({ kind: "connection" });
    } finally {
      cutting.closeAllConnections();
      await new Promise((resolve) => cutting.close(resolve));
    }
  });

  it("a media server that never answers is a timeout", async () => {
    const silent = createServer(() => undefined);
    const origin = await listenOnLoopback(silent);
    try {
      const refusal = source({ mediaOrigin: origin, chunkTimeoutMs: 200 }).download(
        stream(media.length),
        join(dir, "media"),
      );
      await expect(refusal).rejects.toMatchObject({ kind: "timeout" });
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});

async function listenOnLoopback(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("createYoutubeAdapter: each stream is read through the proxy that resolved it", () => {
  const fakes: FakeYoutube[] = [];
  const proxies: ConnectProxy[] = [];

  afterAll(async () => {
    await Promise.all([...proxies, ...fakes].map((open) => open.close()));
  });

  it("takes the proxies in turn per video and keeps each stream's reads on its own", async () => {
    const media = await readFile(audioFixture("whisper-cpp/jfk.mp3"));
    for (let index = 0; index < 2; index++) {
      // Each proxy reaches a YouTube of its own, so where a request lands tells which proxy carried it.
      const fake = await FakeYoutube.start();
      fake
        .player("GJLlxj_dtq8", fromFixture("youtube-transcript-api/youtube.innertube.json.static"))
        .videoplayback(itag, media);
      fakes.push(fake);
      proxies.push(await startConnectProxy({ pinnedTo: fake.origin }));
    }
    const youtube = createYoutubeAdapter({
      origin: "http://youtube.invalid",
      proxyUrls: proxies.map((proxy) => proxy.url),
      attemptTimeoutMs: 2_000,
      budgetMs: 5_000,
    });
    const dir = await mkdtemp(join(tmpdir(), "verbatim-routes-test-"));
    try {
      for (const expected of [0, 1, 0, 1]) {
        const before = fakes.map((fake) => fake.requests.length);
        const audio = await youtube.audio.resolveAudio("GJLlxj_dtq8");
        await youtube.audio.download(audio.stream, join(dir, `media-${before.join("-")}`));
        const added = fakes.map((fake, index) => fake.requests.slice(before[index]).map((request) => request.path));
        expect(added[expected]).toEqual(["/youtubei/v1/player", "/videoplayback"]);
        expect(added[1 - expected]).toEqual([]);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
