import { type ChildProcessByStdio, spawn, spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import type { Readable, Writable } from "node:stream";
import { SourceError } from "../../sources/source-error.ts";
import { type MediaTags, parseFfmetadata } from "./media-tags.ts";

/** The sample rate every speech engine is fed. */
export const SAMPLE_RATE = 16_000;

/** Media to decode: a local file's path, or a byte stream piped to ffmpeg's stdin. */
export type MediaInput = string | Readable;

/** 16 kHz mono float samples as ffmpeg produces them, with the media's duration once ffmpeg has read its header. */
export interface DecodedAudio {
  /** Pieces of samples in order; stops (and kills ffmpeg) when the consumer stops iterating. */
  samples: AsyncIterable<Float32Array>;
  /** Seconds the container declares; null when it declares none (a live stream, some pipes). */
  duration: Promise<number | null>;
}

export interface DecodeOptions {
  /** Kills ffmpeg and ends the iteration with the signal's reason. */
  signal?: AbortSignal;
  /** The input is a live stream piped in: decode it with the least delay (`LIVE_SAMPLES_OUTPUT`). */
  live?: boolean;
}

const require = createRequire(import.meta.url);

/** ffmpeg output options: audio only, mono, 16 kHz, loudness-normalised, raw little-endian float32 on stdout. */
const SPEECH_SAMPLES_OUTPUT = ["-vn", "-ac", "1", "-ar", String(SAMPLE_RATE), "-af", "dynaudnorm", "-f", "f32le", "-"];

/**
 * The same for a live stream, whose words are awaited: dynaudnorm's default frames (500 ms, a
 * gaussian of 31) hold about 8 s of audio back before any comes out; 200 ms frames and a gaussian
 * of 5 hold about half a second. Each packet is written as soon as it is decoded.
 */
const LIVE_SAMPLES_OUTPUT = [
  "-vn",
  "-ac",
  "1",
  "-ar",
  String(SAMPLE_RATE),
  "-af",
  "dynaudnorm=f=200:g=5",
  "-flush_packets",
  "1",
  "-f",
  "f32le",
  "-",
];

/**
 * Input options of a live stream piped in: ffmpeg by default reads 5 MB or 5 s of a pipe before it
 * decodes anything, minutes of a radio stream; 32 KiB and half a second name an audio format.
 */
const LIVE_INPUT_PROBE = ["-probesize", "32768", "-analyzeduration", "500000"];

/**
 * The demuxers media may be read with: plain audio and video containers. Playlists and lists of
 * other files (hls, dash, concat), image sequences and subtitle formats are left out, because they
 * make ffmpeg open what the downloaded bytes name, such as a local file, and ffmpeg picks a demuxer
 * by content, whatever the media's name or type said.
 */
export const ALLOWED_DEMUXERS = [
  "aac",
  "aiff",
  "amr",
  "ape",
  "asf",
  "au",
  "avi",
  "caf",
  "flac",
  "flv",
  "matroska",
  "mov",
  "mp3",
  "mpeg",
  "mpegts",
  "ogg",
  "w64",
  "wav",
  "wv",
] as const;

let ffmpegPath: string | undefined;

/** The system ffmpeg when one is on PATH (it has the newest codecs), else the static binary of `@ffmpeg-installer/ffmpeg`. */
export function resolveFfmpegPath(): string {
  if (ffmpegPath === undefined) {
    const system = spawnSync("ffmpeg", ["-hide_banner", "-version"], { stdio: "ignore" });
    ffmpegPath = system.status === 0 ? "ffmpeg" : (require("@ffmpeg-installer/ffmpeg") as { path: string }).path;
  }
  return ffmpegPath;
}

/**
 * Decodes media with ffmpeg into 16 kHz mono float samples, loudness-normalised (`dynaudnorm`:
 * quiet recordings are not recognised otherwise, see docs/asr.md), streamed without a whole-file
 * buffer. Input problems reject as `SourceError`s: `no_audio_stream` or `invalid_input`.
 */
export function decodeAudio(input: MediaInput, options: DecodeOptions = {}): DecodedAudio {
  const child = options.live
    ? spawnFfmpeg(input, LIVE_SAMPLES_OUTPUT, LIVE_INPUT_PROBE)
    : spawnFfmpeg(input, SPEECH_SAMPLES_OUTPUT);
  const diagnostics = new FfmpegDiagnostics(child.stderr);
  const exited = exitOf(child);
  const onAbort = () => child.kill("SIGKILL");
  options.signal?.addEventListener("abort", onAbort, { once: true });

  async function* samples(): AsyncGenerator<Float32Array> {
    try {
      options.signal?.throwIfAborted();
      // f32le bytes arrive in pipe-sized pieces that can split a sample; carry the split bytes over.
      let carried = Buffer.alloc(0);
      for await (const piece of child.stdout as AsyncIterable<Buffer>) {
        const bytes = carried.length > 0 ? Buffer.concat([carried, piece]) : piece;
        const usable = bytes.length - (bytes.length % 4);
        carried = Buffer.from(bytes.subarray(usable));
        // A copy, because a Float32Array view needs a 4-byte-aligned offset that pipe buffers do not promise.
        if (usable > 0) yield new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + usable));
      }
      const code = await exited;
      options.signal?.throwIfAborted();
      if (code !== 0) throw diagnostics.failure(code);
    } finally {
      options.signal?.removeEventListener("abort", onAbort);
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  }

  return { samples: samples(), duration: diagnostics.duration };
}

/** The duration ffmpeg reads from a file's header, without decoding it; rejects like `decodeAudio`. */
export async function probeDuration(input: string, options: DecodeOptions = {}): Promise<number | null> {
  // `-t 0` makes ffmpeg open the input and its audio stream, then stop before decoding anything.
  const child = spawnFfmpeg(input, ["-vn", "-t", "0", "-f", "null", "-"]);
  const diagnostics = new FfmpegDiagnostics(child.stderr);
  const onAbort = () => child.kill("SIGKILL");
  options.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const code = await exitOf(child);
    options.signal?.throwIfAborted();
    if (code !== 0) throw diagnostics.failure(code);
    return await diagnostics.duration;
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
  }
}

/** The most bytes of `ffmetadata` read: tags and chapters, not a payload hidden in them. */
const maxMetadataBytes = 1024 * 1024;

/**
 * A media file's duration, container tags and chapters, read by ffmpeg from its header without
 * decoding it (`-f ffmetadata`); rejects like `decodeAudio`.
 */
export async function probeMedia(
  input: string,
  options: DecodeOptions = {},
): Promise<MediaTags & { duration: number | null }> {
  const child = spawnFfmpeg(input, ["-f", "ffmetadata", "-"]);
  const diagnostics = new FfmpegDiagnostics(child.stderr);
  const onAbort = () => child.kill("SIGKILL");
  options.signal?.addEventListener("abort", onAbort, { once: true });
  const pieces: Buffer[] = [];
  let bytes = 0;
  child.stdout.on("data", (piece: Buffer) => {
    if (bytes >= maxMetadataBytes) return;
    pieces.push(piece);
    bytes += piece.length;
  });
  try {
    const code = await exitOf(child);
    options.signal?.throwIfAborted();
    if (code !== 0) throw diagnostics.failure(code);
    const text = Buffer.concat(pieces).subarray(0, maxMetadataBytes).toString("utf8");
    return { ...parseFfmetadata(text), duration: await diagnostics.duration };
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
  }
}

function spawnFfmpeg(
  input: MediaInput,
  outputArgs: string[],
  probeArgs: string[] = [],
): ChildProcessByStdio<Writable, Readable, Readable> {
  // A file stays a file, because MP4s that keep their index at the end need seeking; but the one
  // protocol allowed is the input's own, so nothing the media names can be opened.
  const [protocol, source] = typeof input === "string" ? ["file", `file:${input}`] : ["pipe", "pipe:0"];
  const inputArgs = [
    "-protocol_whitelist",
    protocol,
    "-format_whitelist",
    ALLOWED_DEMUXERS.join(","),
    ...probeArgs,
    "-i",
    source,
  ];
  const child = spawn(resolveFfmpegPath(), ["-hide_banner", "-nostdin", ...inputArgs, ...outputArgs], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  if (typeof input === "string") {
    child.stdin.end();
  } else {
    // ffmpeg closes its stdin early when it rejects the input or is killed; its exit code tells why, not EPIPE.
    child.stdin.on("error", () => {});
    input.on("error", () => child.kill("SIGKILL"));
    input.pipe(child.stdin);
  }
  return child;
}

function exitOf(child: ChildProcessByStdio<Writable, Readable, Readable>): Promise<number | null> {
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve(code));
  });
}

/** Keeps what ffmpeg's stderr says about the input, in bounded memory however long the run. */
class FfmpegDiagnostics {
  private static readonly TAIL_CHARS = 4_000;
  private tail = "";
  private seenDuration = false;
  /** ffmpeg prints "Input #0" once it has recognised a container (kept as a flag: the tail forgets it). */
  private opened = false;
  readonly duration: Promise<number | null>;

  constructor(stderr: Readable) {
    let settle: (seconds: number | null) => void = () => {};
    this.duration = new Promise((resolve) => {
      settle = resolve;
    });
    stderr.setEncoding("utf8");
    stderr.on("data", (text: string) => {
      this.tail = (this.tail + text).slice(-FfmpegDiagnostics.TAIL_CHARS);
      this.opened ||= this.tail.includes("Input #0");
      if (!this.seenDuration) {
        const match = /Duration: (N\/A|(\d+):(\d{2}):(\d{2}(?:\.\d+)?))/.exec(this.tail);
        if (match) {
          this.seenDuration = true;
          settle(match[2] === undefined ? null : Number(match[2]) * 3600 + Number(match[3]) * 60 + Number(match[4]));
        }
      }
    });
    stderr.on("close", () => settle(null));
  }

  /** The error a failed run stands for: an input problem as a SourceError, anything else as a plain Error. */
  failure(code: number | null): Error {
    const said = this.tail.trim().split("\n").slice(-3).join(" | ");
    if (this.tail.includes("not on whitelist")) {
      return new SourceError(
        "invalid_input",
        "The media is a playlist, a list of other files or a subtitle file; only audio and video files are transcribed.",
        { cause: new Error(said) },
      );
    }
    if (/does not contain any stream|matches no streams/.test(this.tail)) {
      return new SourceError("no_audio_stream", "The media has no audio stream.", { cause: new Error(said) });
    }
    // Failing before the container is recognised means the bytes are not media (unless the file is missing).
    const unreadable = !this.opened && !/No such file or directory|Permission denied/.test(this.tail);
    if (unreadable || /Invalid data found when processing input|moov atom not found/.test(this.tail)) {
      return new SourceError(
        "invalid_input",
        "The media could not be decoded: it is not an audio or video file ffmpeg reads.",
        {
          cause: new Error(said),
        },
      );
    }
    return new Error(`ffmpeg exited with code ${code}: ${said}`);
  }
}
