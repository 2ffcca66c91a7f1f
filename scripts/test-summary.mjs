// How a test run's end is written, shared by the vitest reporter and the sum of CI's runs.

/** How many of the slowest files a run names at its end. */
const slowestShown = 10;

/** The slowest of `{file, seconds}` entries, slowest first. */
export function slowestFiles(times) {
  return [...times].sort((a, b) => b.seconds - a.seconds).slice(0, slowestShown);
}

/** The failed tests by name, one a line; nothing when none failed. */
export function describeFailures(failures) {
  return failures.length === 0 ? "" : `Failed:\n${failures.map((failure) => `  ${failure}\n`).join("")}`;
}

/** The slowest files with their seconds, one a line. */
export function describeSlowest(slowest) {
  if (slowest.length === 0) return "";
  const lines = slowest.map(({ file, seconds }) => `  ${seconds.toFixed(1).padStart(6)} s  ${file}\n`);
  return `The ${slowest.length} slowest files:\n${lines.join("")}`;
}
