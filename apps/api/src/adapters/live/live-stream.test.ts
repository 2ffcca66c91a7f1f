import { describe, expect, it } from "vitest";
import { SourceError } from "../../sources/source-error.ts";
import type { PublicFetch } from "../net/public-fetch.ts";
import { type LivePiece, type LiveReadOptions, readHls, readIcecast } from "./live-stream.ts";

/** A publisher whose answers the test changes as time goes: a playlist text, segments, statuses. */
class FakeOrigin {
  playlist: (url: string) => Response = () => new Response("", { status: 404 });
  readonly segments = new Map<string, Buffer>();
  readonly asked: string[] = [];

  readonly fetch = Object.assign(
    async (input: string | URL) => {
      const url = String(input);
      this.asked.push(url);
      if (new URL(url).pathname.endsWith(".m3u8")) return this.playlist(url);
      const bytes = this.segments.get(url);
      return bytes ? new Response(bytes) : new Response("gone", { status: 404 });
    },
    { close: async () => {} },
  ) as unknown as PublicFetch;

  /** Lists segments `from` to `to` (2 s each, at /s<n>.ts), with `#EXT-X-ENDLIST` when `ended`. */
  window(from: number, to: number, ended = false, origin = "https://cdn.example.org"): string {
    const lines = ["#EXTM3U", "#EXT-X-TARGETDURATION:2", `#EXT-X-MEDIA-SEQUENCE:${from}`];
    for (let sequence = from; sequence <= to; sequence++) {
      const uri = `${origin}/s${sequence}.ts`;
      if (!this.segments.has(uri)) this.segments.set(uri, Buffer.from(`segment ${sequence}`));
      lines.push("#EXTINF:2.0,", uri);
    }
    if (ended) lines.push("#EXT-X-ENDLIST");
    return lines.join("\n");
  }
}

function options(origin: FakeOrigin, overrides: Partial<LiveReadOptions> = {}): LiveReadOptions {
  return {
    fetch: origin.fetch,
    signal: AbortSignal.timeout(10_000),
    silenceMs: 300,
    maxBytesPerMinute: 1024 * 1024,
    minPollMs: 10,
    ...overrides,
  };
}

/** Every piece the reader gives (media as its sequence number), and how the stream ended. */
async function readAll(reader: AsyncGenerator<LivePiece, string>): Promise<{ pieces: unknown[]; end: string }> {
  const pieces: unknown[] = [];
  for (;;) {
    const step = await reader.next();
    if (step.done) return { pieces, end: step.value };
    const piece = step.value;
    pieces.push(piece.kind === "media" ? piece.sequence : { gap: piece.reason, seconds: piece.seconds });
  }
}

describe("readHls", () => {
  it("starts at the live edge, the last three segments, and ends at #EXT-X-ENDLIST", async () => {
    const origin = new FakeOrigin();
    origin.playlist = () => new Response(origin.window(10, 19, true));
    const { pieces, end } = await readAll(readHls("https://cdn.example.org/live.m3u8", options(origin)));
    expect(pieces).toEqual([17, 18, 19]);
    expect(end).toBe("ended");
  });

  it("follows a master playlist to its smallest audio-only rendition", async () => {
    const origin = new FakeOrigin();
    const media = origin.window(0, 2, true);
    origin.playlist = (url) =>
      url.endsWith("/audio.m3u8")
        ? new Response(media)
        : new Response(
            '#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=2500000,CODECS="avc1.4d401f,mp4a.40.2"\nvideo.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=96000,CODECS="mp4a.40.2"\naudio.m3u8',
          );
    const { pieces } = await readAll(readHls("https://cdn.example.org/master.m3u8", options(origin)));
    expect(pieces).toEqual([0, 1, 2]);
    expect(origin.asked).not.toContain("https://cdn.example.org/video.m3u8");
  });

  it("reads each new segment once as the window slides, and reports segments that left it as a gap", async () => {
    const origin = new FakeOrigin();
    const windows = [origin.window(0, 4), origin.window(3, 7), origin.window(10, 14, true)];
    origin.playlist = () => new Response(windows.shift() ?? origin.window(10, 14, true));
    const { pieces } = await readAll(readHls("https://cdn.example.org/live.m3u8", options(origin)));
    expect(pieces).toEqual([2, 3, 4, 5, 6, 7, { gap: "fell_behind", seconds: 4 }, 10, 11, 12, 13, 14]);
  });

  it("reports a segment deleted before it was read as a gap of its length", async () => {
    const origin = new FakeOrigin();
    const playlist = origin.window(0, 2, true);
    origin.playlist = () => new Response(playlist);
    origin.segments.delete("https://cdn.example.org/s1.ts");
    const { pieces } = await readAll(readHls("https://cdn.example.org/live.m3u8", options(origin)));
    expect(pieces).toEqual([0, { gap: "fell_behind", seconds: 2 }, 2]);
  });

  it("resumes a taken-over session after its last segment when that is still listed, else at the edge with a takeover gap", async () => {
    const origin = new FakeOrigin();
    origin.playlist = () => new Response(origin.window(2, 9, true));
    const resumed = await readAll(readHls("https://cdn.example.org/live.m3u8", options(origin, { resumeAfter: 5 })));
    expect(resumed.pieces).toEqual([6, 7, 8, 9]);
    const behind = await readAll(readHls("https://cdn.example.org/live.m3u8", options(origin, { resumeAfter: 0 })));
    expect(behind.pieces).toEqual([{ gap: "takeover", seconds: 12 }, 7, 8, 9]);
  });

  it("ends as silent when no new segment comes for the silence allowed", async () => {
    const origin = new FakeOrigin();
    origin.playlist = () => new Response(origin.window(0, 1));
    const { pieces, end } = await readAll(readHls("https://cdn.example.org/live.m3u8", options(origin)));
    expect(pieces).toEqual([0, 1]);
    expect(end).toBe("silent");
  });

  it("resolves the stream again when its playlist answers 403, and goes on where it was", async () => {
    const origin = new FakeOrigin();
    let fresh = false;
    origin.playlist = (url) =>
      url.includes("token=old")
        ? fresh
          ? new Response("expired", { status: 403 })
          : new Response(origin.window(0, 2))
        : new Response(origin.window(1, 4, true));
    const reader = readHls(
      "https://cdn.example.org/live.m3u8?token=old",
      options(origin, {
        reresolve: async () => "https://cdn.example.org/live.m3u8?token=new",
      }),
    );
    const first = await reader.next();
    fresh = true;
    const rest = await readAll(reader);
    expect([first.value && (first.value as { sequence: number }).sequence, ...rest.pieces]).toEqual([0, 1, 2, 3, 4]);
    expect(origin.asked.filter((url) => url.endsWith("token=new"))).toHaveLength(1);
  });

  it("ends the stream when a playlist that expired cannot be resolved again", async () => {
    const origin = new FakeOrigin();
    origin.playlist = () => new Response("gone", { status: 410 });
    const { end } = await readAll(readHls("https://cdn.example.org/live.m3u8", options(origin)));
    expect(end).toBe("ended");
  });

  it("ends the stream when every fresh address is gone as soon as it is read, after three tries", async () => {
    const origin = new FakeOrigin();
    origin.playlist = () => new Response("taken down", { status: 404 });
    let resolutions = 0;
    const reader = readHls(
      "https://cdn.example.org/live.m3u8",
      options(origin, {
        reresolve: async () => {
          resolutions += 1;
          return `https://cdn.example.org/live.m3u8?try=${resolutions}`;
        },
      }),
    );
    expect((await readAll(reader)).end).toBe("ended");
    expect(resolutions).toBe(3);
  });

  it("fails with media_too_large (audio_ineligible) when the stream brings more bytes per minute of media than allowed", async () => {
    const origin = new FakeOrigin();
    const playlist = origin.window(0, 9, true);
    origin.playlist = () => new Response(playlist);
    for (const uri of origin.segments.keys()) origin.segments.set(uri, Buffer.alloc(400));
    const reader = readHls(
      "https://cdn.example.org/live.m3u8",
      options(origin, { maxBytesPerMinute: 1_000, edgeSegments: 10 }),
    );
    const failure = await readAll(reader).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SourceError);
    expect(failure).toMatchObject({ kind: "media_too_large" });
  });

  it("refuses a playlist that is no HLS as invalid_input", async () => {
    const origin = new FakeOrigin();
    origin.playlist = () => new Response("<html>a page</html>");
    await expect(readAll(readHls("https://cdn.example.org/live.m3u8", options(origin)))).rejects.toMatchObject({
      kind: "invalid_input",
    });
  });
});

describe("readIcecast", () => {
  it("gives the body as it arrives and ends when the server ends it and has nothing more", async () => {
    let calls = 0;
    const fetch = Object.assign(
      async () => {
        calls += 1;
        return new Response(calls === 1 ? new Blob([Buffer.from("abc"), Buffer.from("def")]).stream() : "");
      },
      { close: async () => {} },
    ) as unknown as PublicFetch;
    const origin = new FakeOrigin();
    const { pieces, end } = await readAll(
      readIcecast("https://radio.example.org/stream", { ...options(origin), fetch }),
    );
    expect(pieces.length).toBeGreaterThan(0);
    expect(end).toBe("ended");
  });

  it("ends as silent when the server sends nothing for the silence allowed", async () => {
    const fetch = Object.assign(
      async (_url: string, init: { signal: AbortSignal }) =>
        new Response(
          new ReadableStream({
            start(controller) {
              init.signal.addEventListener("abort", () => controller.error(init.signal.reason));
            },
          }),
        ),
      { close: async () => {} },
    ) as unknown as PublicFetch;
    const { end } = await readAll(
      readIcecast("https://radio.example.org/stream", { ...options(new FakeOrigin()), fetch }),
    );
    expect(end).toBe("silent");
  });
});
