// The Python SDK's virtual environment (packages/sdk-python/.venv, ignored by git): creates it
// with python3 when missing, installs the SDK editable with its test extras from pip's configured
// index whenever pyproject.toml changed since the last install, then runs the given command of the
// environment (`node scripts/python-env.mjs pytest -q`) in the current directory. Without a
// command it only makes the environment ready. Concurrent runs wait for each other's install.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..", "packages", "sdk-python");
const venv = join(packageDir, ".venv");
const bin = join(venv, "bin");
const stamp = join(venv, ".installed-pyproject");
const lock = `${venv}.lock`;
// No retries: an index that is not reachable here (the public one, on machines with a local
// mirror) is passed over at once instead of after five attempts per package.
const pipOptions = ["--quiet", "--disable-pip-version-check", "--retries", "0"];

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: "inherit", ...options });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

function mustRun(command, args) {
  if (run(command, args) !== 0) throw new Error(`\`${command} ${args.join(" ")}\` failed`);
}

function sleepMs(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function withLock(work) {
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

const wanted = createHash("sha256")
  .update(readFileSync(join(packageDir, "pyproject.toml")))
  .digest("hex");
const installed = () => existsSync(stamp) && readFileSync(stamp, "utf8") === wanted;

if (!installed()) {
  try {
    withLock(install);
  } catch (error) {
    console.error(`python-env: ${error.message}`);
    process.exit(1);
  }
}

function install() {
  if (installed()) return;
  if (!existsSync(join(bin, "python"))) mustRun("python3", ["-m", "venv", venv]);
  const pip = join(bin, "pip");
  // hatchling in the environment lets the editable install build without an isolated build
  // environment, which would ask the index for it again.
  mustRun(pip, ["install", ...pipOptions, "hatchling", "editables"]);
  mustRun(pip, ["install", ...pipOptions, "--no-build-isolation", "--editable", `${packageDir}[test]`]);
  writeFileSync(stamp, wanted);
}

const [command, ...args] = process.argv.slice(2);
if (command) process.exit(run(join(bin, command), args));
