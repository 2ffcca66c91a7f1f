// The Python SDK's virtual environment (packages/sdk-python/.venv, ignored by git): creates it
// with python3 when missing, installs the SDK editable with its test extras from pip's configured
// index whenever pyproject.toml changed since the last install, then runs the given command of the
// environment (`node scripts/python-env.mjs pytest -q`) in the current directory. Without a
// command it only makes the environment ready. Concurrent runs wait for each other's install.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { mustRun, pipOptions, readyVirtualEnvironment, run } from "./python-venv.mjs";

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..", "packages", "sdk-python");

let bin;
try {
  bin = readyVirtualEnvironment({
    venv: join(packageDir, ".venv"),
    stampName: ".installed-pyproject",
    stampedFiles: [join(packageDir, "pyproject.toml")],
    install(venvBin) {
      const pip = join(venvBin, "pip");
      // hatchling in the environment lets the editable install build without an isolated build
      // environment, which would ask the index for it again.
      mustRun(pip, ["install", ...pipOptions, "hatchling", "editables"]);
      mustRun(pip, ["install", ...pipOptions, "--no-build-isolation", "--editable", `${packageDir}[test]`]);
    },
  });
} catch (error) {
  console.error(`python-env: ${error.message}`);
  process.exit(1);
}

const [command, ...args] = process.argv.slice(2);
if (command) process.exit(run(join(bin, command), args));
