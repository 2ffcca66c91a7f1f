// What scripts/python-env.mjs (the Python SDK's environment) and scripts/ytdlp-env.mjs (yt-dlp's)
// share: a virtual environment made by python3, filled by an install step whenever the hash of
// the files it is installed from changed since the last install (a stamp file in the
// environment), one install at a time across processes (a lock directory beside it).
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

// No retries: an index that is not reachable here (the public one, on machines with a local
// mirror) is passed over at once instead of after five attempts per package.
export const pipOptions = ["--quiet", "--disable-pip-version-check", "--retries", "0"];

export function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: "inherit", ...options });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

export function mustRun(command, args) {
  if (run(command, args) !== 0) throw new Error(`\`${command} ${args.join(" ")}\` failed`);
}

function sleepMs(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function withLock(lock, work) {
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if (error.code !== "EEXIST" || Date.now() > deadline) throw error;
      sleepMs(200);
    }
  }
  try {
    work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * Makes `venv` ready: unless its stamp holds the hash of `stampedFiles`, creates it with python3
 * when it has no interpreter, calls `install(bin)` with its bin directory, and writes the stamp.
 * Throws when a step fails; returns the bin directory.
 */
export function readyVirtualEnvironment({ venv, stampName, stampedFiles, install }) {
  const bin = join(venv, "bin");
  const stamp = join(venv, stampName);
  const hash = createHash("sha256");
  for (const file of stampedFiles) hash.update(readFileSync(file));
  const wanted = hash.digest("hex");
  const installed = () => existsSync(stamp) && readFileSync(stamp, "utf8") === wanted;
  if (installed()) return bin;
  withLock(`${venv}.lock`, () => {
    if (installed()) return;
    if (!existsSync(join(bin, "python"))) mustRun("python3", ["-m", "venv", venv]);
    install(bin);
    writeFileSync(stamp, wanted);
  });
  return bin;
}
