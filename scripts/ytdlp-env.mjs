// yt-dlp's virtual environment (apps/api/.ytdlp, ignored by git), the engine the API reads every
// video platform but YouTube with (apps/api/src/sources/ytdlp): creates it with python3 when
// missing and installs apps/api/src/sources/ytdlp/requirements.txt from pip's configured index
// whenever that file changed since the last install. Concurrent runs wait for each other's
// install. With `--optional` (the root postinstall) a machine without a usable python3 or index
// gets a warning and exit status 0: the service starts without the engine and answers those
// platforms' requests with an error until the environment is made.
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { mustRun, pipOptions, readyVirtualEnvironment } from "./python-venv.mjs";

const apiDir = join(dirname(fileURLToPath(import.meta.url)), "..", "apps", "api");
const requirements = join(apiDir, "src", "sources", "ytdlp", "requirements.txt");
const optional = process.argv.includes("--optional");
/** yt-dlp 2026.8.19's `Requires-Python`. */
const minimumPython = [3, 10];

function checkPython() {
  const probe = spawnSync(
    "python3",
    ["-c", `import sys; sys.exit(0 if sys.version_info >= (${minimumPython.join(", ")}) else 1)`],
    { encoding: "utf8" },
  );
  if (probe.error) throw new Error(`python3 is not on PATH (${probe.error.message})`);
  if (probe.status !== 0) throw new Error(`python3 is older than ${minimumPython.join(".")}`);
}

try {
  checkPython();
  readyVirtualEnvironment({
    venv: join(apiDir, ".ytdlp"),
    stampName: ".installed-requirements",
    stampedFiles: [requirements],
    install(bin) {
      mustRun(join(bin, "pip"), ["install", ...pipOptions, "--requirement", requirements]);
    },
  });
} catch (error) {
  if (!optional) {
    console.error(`ytdlp-env: ${error.message}`);
    process.exit(1);
  }
  console.warn(
    `ytdlp-env: warning: yt-dlp is not installed (${error.message}). Verbatim starts without it and cannot read ` +
      "video platforms other than YouTube until `node scripts/ytdlp-env.mjs` succeeds or VERBATIM_YTDLP names an " +
      "installation.",
  );
}
