import { closeSync, existsSync, openSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import { packagePath } from "../../package-files.ts";

/** How to start a Python that imports yt_dlp. */
export interface YtdlpEngine {
  /** The Python interpreter. */
  python: string;
  /** A directory or zip file put first on PYTHONPATH (a yt-dlp zipapp). */
  pythonPath?: string;
  /** Where it was found, for the start-up log. */
  origin: "VERBATIM_YTDLP" | "project";
}

/** The environment scripts/ytdlp-env.mjs makes, beside src/ in the API package. */
export const projectYtdlpVenv = packagePath(".ytdlp");

/**
 * Finds the yt-dlp to run, or null when there is none (the service then reads no platform
 * through yt-dlp and says so).
 *
 * `VERBATIM_YTDLP` lets an operator upgrade yt-dlp without a Verbatim release (platforms change
 * faster than releases). It names one of:
 * - a virtual environment's directory with yt_dlp installed (`python -m venv DIR && DIR/bin/pip
 *   install -U yt-dlp`): its `bin/python` runs the sidecar;
 * - a Python interpreter that imports yt_dlp (`/usr/bin/python3` with the Debian package, say);
 * - a yt-dlp zipapp, the `yt-dlp` file of yt-dlp's releases (a zip archive behind a `#!` line):
 *   it goes on PYTHONPATH, where Python imports packages from zip files, and `python3` from PATH
 *   runs the sidecar. Told from an interpreter by the zip archive's end record at its end.
 * A value that names nothing there is an error, not a silent fallback to the project's copy.
 * Without it, the project's environment (apps/api/.ytdlp) when it has an interpreter.
 */
export function findYtdlp(env: NodeJS.ProcessEnv = process.env): YtdlpEngine | null {
  const configured = env.VERBATIM_YTDLP?.trim();
  if (configured) {
    if (!existsSync(configured)) throw new Error(`VERBATIM_YTDLP names ${configured}, which does not exist`);
    if (statSync(configured).isDirectory()) {
      const python = join(configured, "bin", "python");
      if (!existsSync(python)) {
        throw new Error(
          `VERBATIM_YTDLP names the directory ${configured}, which is no virtual environment (no bin/python)`,
        );
      }
      return { python, origin: "VERBATIM_YTDLP" };
    }
    if (isZipArchive(configured)) return { python: "python3", pythonPath: configured, origin: "VERBATIM_YTDLP" };
    return { python: configured, origin: "VERBATIM_YTDLP" };
  }
  const projectPython = join(projectYtdlpVenv, "bin", "python");
  return existsSync(projectPython) ? { python: projectPython, origin: "project" } : null;
}

/** A zip archive ends with its end-of-central-directory record (PK\x05\x06), then a comment of up to 64 KiB. */
function isZipArchive(path: string): boolean {
  const size = statSync(path).size;
  const length = Math.min(size, 22 + 0xffff);
  const tail = Buffer.alloc(length);
  const descriptor = openSync(path, "r");
  try {
    readSync(descriptor, tail, 0, length, size - length);
  } finally {
    closeSync(descriptor);
  }
  return tail.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06])) !== -1;
}
