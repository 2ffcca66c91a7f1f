import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { audioFixture } from "@verbatim/testkit/fake-podcast-host";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeAudio, probeDuration, SAMPLE_RATE } from "../../src/adapters/media/decoder.ts";
import { ApiError } from "../../src/errors.ts";
import { isAnswerable, toApiError } from "../../src/services/failures/source-failures.ts";
import { type GeneratedMedia, generatedMedia } from "./generated-media.ts";

async function countSamples(samples: AsyncIterable<Float32Array>): Promise<{ count: number; peak: number }> {
  let count = 0;
  let peak = 0;
  for await (const piece of samples) {
    count += piece.length;
    for (const sample of piece) peak = Math.max(peak, Math.abs(sample));
  }
  return { count, peak };
}

/** A call's failure as the API answers it. */
function answered<T>(call: Promise<T>): Promise<T> {
  return call.catch((error: unknown) => {
    throw toApiError(error);
  });
}

/** What a rejection answers: a decoder's failure as the API answers it, anything else as it is. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail("expected a rejection"),
    (error: unknown) => (isAnswerable(error) ? toApiError(error) : error),
  );
}

describe("decodeAudio", () => {
  let media: GeneratedMedia;
  let videoOnly: string;
  let noise: string;
  let errorPage: string;

  beforeAll(async () => {
    media = await generatedMedia();
    videoOnly = await media.make("video-only.mp4", ["-f", "lavfi", "-i", "color=c=blue:s=64x64:d=1", "-c:v", "mpeg4"]);
    // Fixed bytes, not random ones: about 1 in 100 random buffers reads as a subtitle file (lrc, tty) with no audio.
    const blocks = Array.from({ length: 625 }, (_, index) => createHash("sha256").update(`noise ${index}`).digest());
    noise = await media.write("noise.mp3", Buffer.concat(blocks));
    errorPage = await media.write(
      "episode.mp3",
      Buffer.from(
        "<!doctype html><html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>\n",
      ),
    );
  });
  afterAll(() => media.remove());

  it("turns a 44.1 kHz stereo 24-bit FLAC into normalised 16 kHz mono float samples of the same length", async () => {
    const audio = decodeAudio(audioFixture("openai-whisper/jfk.flac"));
    const { count, peak } = await countSamples(audio.samples);
    expect(count / SAMPLE_RATE).toBeCloseTo(11, 1);
    // dynaudnorm brings the speech up to near full scale.
    expect(peak).toBeGreaterThan(0.5);
    expect(await audio.duration).toBeCloseTo(11, 1);
  });

  it("decodes a byte stream piped to ffmpeg's stdin", async () => {
    const audio = decodeAudio(createReadStream(audioFixture("whisper-cpp/jfk.mp3")));
    const { count } = await countSamples(audio.samples);
    expect(count / SAMPLE_RATE).toBeGreaterThan(10.5);
    expect(count / SAMPLE_RATE).toBeLessThan(11.5);
  });

  it("rejects a video without sound as no_audio_stream", async () => {
    const error = await rejection(countSamples(decodeAudio(videoOnly).samples));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: "no_audio_stream", number: 4106 });
  });

  it("rejects bytes that are no media as invalid_input, from a file and from a stream", async () => {
    for (const input of [noise, createReadStream(noise), errorPage, createReadStream(errorPage)]) {
      const error = await rejection(countSamples(decodeAudio(input).samples));
      expect(error).toMatchObject({ code: "invalid_input", number: 3005 });
    }
  });

  // ffmpeg opens what a file names only through file, crypto and data, so downloaded media can't reach past the address rule.
  it("never fetches the addresses a downloaded playlist or concat list names", async () => {
    const requests: string[] = [];
    const internal = createServer((request, response) => {
      requests.push(request.url ?? "");
      response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => internal.listen(0, "127.0.0.1", resolve));
    const address = `http://127.0.0.1:${(internal.address() as AddressInfo).port}`;
    try {
      const playlist = `#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\n${address}/segment.ts\n#EXT-X-ENDLIST\n`;
      const concat = `ffconcat version 1.0\nfile ${address}/part.mp3\n`;
      for (const [name, text] of [
        ["playlist.mp3", playlist],
        ["concat.mp3", concat],
      ] as const) {
        const path = await media.write(name, Buffer.from(text));
        for (const input of [path, createReadStream(path)]) {
          const error = await rejection(countSamples(decodeAudio(input).samples));
          expect(error).toMatchObject({ code: "invalid_input" });
        }
      }
      expect(requests).toEqual([]);
    } finally {
      await new Promise((resolve) => internal.close(resolve));
    }
  });

  // The bundled ffmpeg picks a demuxer by content: a playlist served as media would read any local file it names.
  it.each([
    ["an HLS playlist", (wav: string) => `#EXTM3U\n#EXT-X-TARGETDURATION:11\n#EXTINF:11,\n${wav}\n#EXT-X-ENDLIST\n`],
    ["an HLS playlist with a file: URL", (wav: string) => `#EXTM3U\n#EXTINF:11,\nfile:${wav}\n#EXT-X-ENDLIST\n`],
    ["an ffconcat list", (wav: string) => `ffconcat version 1.0\nfile '${wav}'\n`],
    ["a concat list with a duration", (wav: string) => `ffconcat version 1.0\nfile ${wav}\nduration 11\n`],
  ])("refuses %s naming a local file, reading nothing of it", async (_, listing) => {
    const privateRecording = audioFixture("whisper-cpp/jfk.wav");
    const path = await media.write("listing.mp3", Buffer.from(listing(privateRecording)));
    for (const input of [path, createReadStream(path)]) {
      const error = await rejection(countSamples(decodeAudio(input).samples));
      expect(error).toMatchObject({ code: "invalid_input" });
    }
    await expect(answered(probeDuration(path))).rejects.toMatchObject({ code: "invalid_input" });
  });

  it("still decodes every container it allows, from a file and from a pipe", async () => {
    const tone = ["-f", "lavfi", "-i", "sine=frequency=440:duration=1"];
    const made = [
      await media.make("tone.mp3", tone),
      await media.make("tone.m4a", [...tone, "-c:a", "aac"]),
      await media.make("tone.ogg", [...tone, "-c:a", "libvorbis"]),
      await media.make("tone.opus", [...tone, "-c:a", "libopus"]),
      await media.make("tone.mka", tone),
      await media.make("tone.webm", [...tone, "-c:a", "libopus"]),
      await media.make("tone.flac", tone),
      await media.make("tone.wav", tone),
      // The index at the end, as cameras write it: only a file, which can be sought, reads it.
      await media.make("tone.mov", [...tone, "-c:a", "aac"]),
    ];
    for (const path of made) {
      const { count } = await countSamples(decodeAudio(path).samples);
      expect(count, path).toBeGreaterThan(SAMPLE_RATE * 0.9);
    }
    const { count } = await countSamples(decodeAudio(createReadStream(made[0] as string)).samples);
    expect(count).toBeGreaterThan(SAMPLE_RATE * 0.9);
  });

  it("kills ffmpeg and rejects with the reason when aborted", async () => {
    const controller = new AbortController();
    const audio = decodeAudio(audioFixture("openai-whisper/jfk.flac"), { signal: controller.signal });
    const reason = new Error("job cancelled");
    const consumed = (async () => {
      for await (const _piece of audio.samples) controller.abort(reason);
    })();
    await expect(consumed).rejects.toBe(reason);
  });
});

describe("probeDuration", () => {
  let media: GeneratedMedia;

  beforeAll(async () => {
    media = await generatedMedia();
  });
  afterAll(() => media.remove());

  it("reads the duration from the header without decoding", async () => {
    expect(await probeDuration(audioFixture("whisper-cpp/jfk.wav"))).toBeCloseTo(11, 1);
    expect(await probeDuration(audioFixture("whisper-cpp/jfk.mp3"))).toBeCloseTo(11.1, 1);
  });

  it("rejects a video without sound as no_audio_stream", async () => {
    const videoOnly = await media.make("video-only.webm", ["-f", "lavfi", "-i", "color=c=red:s=32x32:d=1"]);
    await expect(answered(probeDuration(videoOnly))).rejects.toMatchObject({ code: "no_audio_stream" });
  });
});
