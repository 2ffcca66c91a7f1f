// Regenerates everything from spec/ and fails when a committed generated file differs from it
// (or a generated file is missing from git): the generated files may never drift from the spec.
import { execFileSync, spawnSync } from "node:child_process";

const generation = spawnSync("pnpm", ["exec", "turbo", "run", "generate", "--force", "--output-logs=errors-only"], {
  stdio: "inherit",
});
if (generation.status !== 0) {
  console.error("`pnpm generate` failed; see above.");
  process.exit(1);
}

const drift = execFileSync("git", ["status", "--porcelain", "--untracked-files=all", "--", ":(glob)**/generated/**"], {
  encoding: "utf8",
}).trim();

if (drift) {
  console.error(`Generated files differ from spec/. Run \`pnpm generate\` and commit the result:\n${drift}`);
  execFileSync("git", ["--no-pager", "diff", "--stat", "--", ":(glob)**/generated/**"], { stdio: "inherit" });
  process.exit(1);
}
console.log("Generated files match spec/.");
