import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { audioFixture } from "@verbatim/testkit/fake-podcast-host";
import { resolveFfmpegPath } from "../../src/adapters/media/decoder.ts";

const run = promisify(execFile);

/** The words spoken in the JFK fixtures (their SOURCE.md). */
export const JFK_REFERENCE =
  "And so, my fellow Americans, ask not what your country can do for you, ask what you can do for your country.";

/**
 * The word error rate the default decoding must stay within on each JFK fixture. bench/asr.ts measured
 * modified_beam_search/4 at 4.5 % on jfk.wav and jfk.flac and 0 % on jfk.mp3 (one word of 22 is 4.5 %),
 * where greedy search made 18.2 %, 13.6 % and 18.2 %. The limit allows one wrong word: what jfk.wav and
 * jfk.flac measured, one more than jfk.mp3; a second wrong word, or greedy search, fails.
 */
export const JFK_WER_LIMIT = 0.05;

/** Media made with ffmpeg for the cases no recording covers, in a temporary directory. */
export interface GeneratedMedia {
  dir: string;
  /** Runs ffmpeg with these arguments, writing `name` in the directory; returns its path. */
  make(name: string, args: string[]): Promise<string>;
  /** Writes these bytes as `name`; returns its path. */
  write(name: string, bytes: Uint8Array): Promise<string>;
  /** A WAV file of `seconds` of real speech (jfk.wav over and over), for jobs long enough to interrupt; returns its path. */
  speech(name: string, seconds: number): Promise<string>;
  remove(): Promise<void>;
}

export async function generatedMedia(): Promise<GeneratedMedia> {
  const dir = await mkdtemp(join(tmpdir(), "verbatim-asr-"));
  const make = async (name: string, args: string[]) => {
    const path = join(dir, name);
    await run(resolveFfmpegPath(), ["-hide_banner", "-nostdin", "-y", ...args, path]);
    return path;
  };
  return {
    dir,
    make,
    async write(name, bytes) {
      const path = join(dir, name);
      await writeFile(path, bytes);
      return path;
    },
    speech(name, seconds) {
      return make(name, ["-stream_loop", "-1", "-i", audioFixture("whisper-cpp/jfk.wav"), "-t", String(seconds)]);
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
