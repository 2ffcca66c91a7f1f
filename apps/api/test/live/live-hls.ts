import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { audioFixture } from "@verbatim/testkit/fake-podcast-host";
import { resolveFfmpegPath } from "../../src/adapters/media/decoder.ts";

const run = promisify(execFile);

/**
 * The audio a live publisher sends: AAC at 48 kHz and 128 kb/s, as YouTube's and radio streams'
 * renditions are. AAC at the recordings' own 16 kHz is coded so narrowly that jfk.wav loses two
 * more words to it (measured: 13.6 % WER against 0 % at 48 kHz).
 */
const publisherAudio = ["-ar", "48000", "-c:a", "aac", "-b:a", "128k"];

/** One segment of a recording cut for HLS: its file and its declared length. */
export interface CutSegment {
  bytes: Buffer;
  duration: number;
}

/**
 * Live HLS on loopback, as a publisher serves it: a directory that ffmpeg writes in real time
 * (`live`), or a recording cut into segments that the server releases one at a time into a window
 * of the newest few, deleting the older ones (`paced`), faster than real time when a test asks.
 */
export interface LiveHlsServer {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  /** Every path asked for, in order. */
  requests: string[];
  /**
   * Runs ffmpeg on `recording` as a live encoder (`-re`): segments of about 2 s, a list of 5, old
   * segments deleted, `#EXT-X-ENDLIST` when the recording ends. Answers the playlist's address
   * once ffmpeg has written it, and a promise of ffmpeg's end.
   */
  live(name: string, recording: string): Promise<{ url: string; done: Promise<void> }>;
  /** Serves `segments` as a live playlist; see `PacedOptions`. */
  paced(name: string, segments: readonly CutSegment[], options?: PacedOptions): PacedPlaylist;
  close(): Promise<void>;
}

export interface PacedOptions {
  /** Milliseconds between two new segments; default each segment's own duration (real time). */
  intervalMs?: number;
  /** Segments the playlist lists at once; default 5. */
  window?: number;
  /** Segments listed before the first interval passes; default 1. */
  initial?: number;
  /** Append `#EXT-X-ENDLIST` after the last segment; default true. Without it the stream goes silent. */
  endList?: boolean;
}

export interface PacedPlaylist {
  url: string;
  /** The segments released so far. */
  released(): number;
  stop(): void;
  /** The playlist answers 403 from now on, as a platform's signed address does once it expired. */
  expire(): void;
}

/** A recording cut into HLS segments of about `seconds` each (AAC in MPEG-TS, as live encoders send). */
export async function cutRecording(recording: string, seconds = 2): Promise<CutSegment[]> {
  const dir = await mkdtemp(join(tmpdir(), "verbatim-hls-cut-"));
  try {
    await run(resolveFfmpegPath(), [
      "-hide_banner",
      "-nostdin",
      "-loglevel",
      "error",
      "-i",
      recording,
      ...publisherAudio,
      "-f",
      "hls",
      "-hls_time",
      String(seconds),
      "-hls_list_size",
      "0",
      "-hls_segment_filename",
      join(dir, "cut%04d.ts"),
      join(dir, "index.m3u8"),
    ]);
    const playlist = await readFile(join(dir, "index.m3u8"), "utf8");
    const segments: CutSegment[] = [];
    let duration = 0;
    for (const line of playlist.split("\n")) {
      const declared = /^#EXTINF:([\d.]+)/.exec(line);
      if (declared) duration = Number(declared[1]);
      else if (line.endsWith(".ts")) segments.push({ bytes: await readFile(join(dir, line.trim())), duration });
    }
    return segments;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Real speech of `seconds` (jfk.wav over and over), as a WAV file in a temporary directory. */
export async function speechRecording(seconds: number): Promise<{ path: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "verbatim-live-speech-"));
  const path = join(dir, "speech.wav");
  await run(resolveFfmpegPath(), [
    "-hide_banner",
    "-nostdin",
    "-loglevel",
    "error",
    "-stream_loop",
    "-1",
    "-i",
    audioFixture("whisper-cpp/jfk.wav"),
    "-t",
    String(seconds),
    path,
  ]);
  return { path, remove: () => rm(dir, { recursive: true, force: true }) };
}

export async function startLiveHlsServer(): Promise<LiveHlsServer> {
  const root = await mkdtemp(join(tmpdir(), "verbatim-live-hls-"));
  const requests: string[] = [];
  const playlists = new Map<string, { text: () => string | null; segment: (file: string) => Buffer | null }>();
  const encoders = new Set<ChildProcess>();
  const timers = new Set<NodeJS.Timeout>();

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
    requests.push(path);
    void answer(path, res).catch(() => res.destroy());
  });

  async function answer(path: string, res: ServerResponse): Promise<void> {
    const [, name = "", file = ""] = /^\/([^/]+)\/([^/]+)$/.exec(path) ?? [];
    const paced = playlists.get(name);
    if (paced) {
      if (file === "index.m3u8") {
        const text = paced.text();
        if (text === null) res.writeHead(403).end("expired");
        else res.writeHead(200, { "content-type": "application/vnd.apple.mpegurl" }).end(text);
        return;
      }
      const bytes = paced.segment(file);
      if (bytes) res.writeHead(200, { "content-type": "video/mp2t" }).end(bytes);
      else res.writeHead(404).end();
      return;
    }
    const local = join(root, name, file);
    if (!name || !file || file.includes("..") || !existsSync(local) || !(await stat(local)).isFile()) {
      res.writeHead(404).end();
      return;
    }
    const type = file.endsWith(".m3u8") ? "application/vnd.apple.mpegurl" : "video/mp2t";
    res.writeHead(200, { "content-type": type }).end(await readFile(local));
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    origin,
    requests,
    async live(name, recording) {
      const dir = join(root, name);
      await mkdir(dir, { recursive: true });
      const encoder = spawn(
        resolveFfmpegPath(),
        [
          "-hide_banner",
          "-nostdin",
          "-loglevel",
          "error",
          "-re",
          "-i",
          recording,
          ...publisherAudio,
          "-f",
          "hls",
          "-hls_time",
          "2",
          "-hls_list_size",
          "5",
          "-hls_flags",
          "delete_segments",
          "-hls_segment_filename",
          join(dir, "seg%03d.ts"),
          join(dir, "index.m3u8"),
        ],
        { stdio: ["ignore", "ignore", "pipe"] },
      );
      encoders.add(encoder);
      const done = new Promise<void>((resolve, reject) => {
        encoder.once("error", reject);
        encoder.once("close", (code) => {
          encoders.delete(encoder);
          if (code === 0) resolve();
          else reject(new Error(`the live encoder exited with ${code}`));
        });
      });
      const deadline = Date.now() + 20_000;
      while (!(await readdir(dir)).includes("index.m3u8")) {
        if (Date.now() > deadline) throw new Error("the live encoder wrote no playlist");
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return { url: `${origin}/${name}/index.m3u8`, done };
    },
    paced(name, segments, options = {}) {
      const window = options.window ?? 5;
      let released = Math.min(segments.length, options.initial ?? 1);
      let expired = false;
      let timer: NodeJS.Timeout | undefined;
      const release = () => {
        if (released >= segments.length) return;
        released += 1;
        const next = segments[released - 1];
        timer = setTimeout(release, options.intervalMs ?? (next?.duration ?? 2) * 1000);
        timers.add(timer);
      };
      timer = setTimeout(release, options.intervalMs ?? (segments[0]?.duration ?? 2) * 1000);
      timers.add(timer);
      const first = () => Math.max(0, released - window);
      playlists.set(name, {
        text() {
          if (expired) return null;
          const listed = segments.slice(first(), released);
          const target = Math.ceil(Math.max(...segments.map((segment) => segment.duration)));
          const lines = [
            "#EXTM3U",
            "#EXT-X-VERSION:3",
            `#EXT-X-TARGETDURATION:${target}`,
            `#EXT-X-MEDIA-SEQUENCE:${first()}`,
          ];
          for (const [index, segment] of listed.entries()) {
            lines.push(`#EXTINF:${segment.duration.toFixed(6)},`, `s${first() + index}.ts`);
          }
          if (released === segments.length && options.endList !== false) lines.push("#EXT-X-ENDLIST");
          return `${lines.join("\n")}\n`;
        },
        segment(file) {
          const index = Number(/^s(\d+)\.ts$/.exec(file)?.[1] ?? -1);
          // Segments that left the window are deleted, as live encoders do.
          return index >= first() && index < released ? (segments[index]?.bytes ?? null) : null;
        },
      });
      return {
        url: `${origin}/${name}/index.m3u8`,
        released: () => released,
        stop() {
          clearTimeout(timer);
        },
        expire() {
          expired = true;
        },
      };
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      for (const encoder of encoders) encoder.kill("SIGKILL");
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await rm(root, { recursive: true, force: true });
    },
  };
}
