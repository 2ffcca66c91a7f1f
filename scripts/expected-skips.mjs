// The tests CI expects to skip, each with why. Under CI=true a skipped test that is not listed
// here fails the run (scripts/plain-summary-reporter.ts): a guard that skips quietly, such as a
// browser test that finds no browser or no page to test, cannot pass for a green run. The Python
// SDK's suite expects no skip at all (packages/sdk-python/tests/conftest.py).

const sharedDatabase =
  "separate processes on one database, or the database cut away under them: PGlite belongs to one process";
const dataDirectory =
  "the single-process case on a data directory, which the PostgreSQL pass replaces with separate processes";

/** Tests of `file` whose full names start with `test`, skipped on the embedded pass: they need PostgreSQL. */
const postgresOnly = [
  ["apps/api/test/platform/migrations.test.ts", "processes starting together on one PostgreSQL migrate it once"],
  ["apps/api/test/platform/processes.test.ts", "separate API processes on one PostgreSQL"],
  [
    "apps/api/test/audio/worker-crash.test.ts",
    "a worker killed with SIGKILL mid-transcription: the job is retried and charged once > on PostgreSQL:",
  ],
  ["apps/api/test/cli/cli.test.ts", "the CLI on PostgreSQL"],
  [
    "apps/api/test/idempotency-crash.test.ts",
    "an API process that dies between charging a request with an Idempotency-Key and recording its answer > on PostgreSQL:",
  ],
  ["apps/api/test/operations/shutdown.test.ts", "SIGTERM: a graceful shutdown"],
  [
    "apps/api/test/platforms/platform-service-process.test.ts",
    "the service process reads the platforms through VERBATIM_PROXY_URLS and VERBATIM_CA_FILE (embedded) > hands TikTok and Instagram jobs to a worker process",
  ],
  ["apps/api/test/webhooks/webhooks.test.ts", "two processes on one PostgreSQL (DATABASE_URL)"],
  ["apps/api/test/webhooks/webhooks.test.ts", "a deliverer process killed mid-attempt"],
  ["apps/api/test/cluster/cluster.test.ts", "a cluster of 2 API and 2 worker processes on PostgreSQL"],
  ["apps/api/test/monitors/worker-processes.test.ts", "monitor checks by worker processes on PostgreSQL"],
  ["apps/api/test/extraction-slots.test.ts", "a slot held when the database goes away (PostgreSQL)"],
  ["apps/api/test/platform/lost-charges.test.ts", "a charge whose answer the connection lost (PostgreSQL)"],
];

/** Tests skipped on the PostgreSQL pass: the embedded engine's own case. */
const embeddedOnly = [
  [
    "apps/api/test/audio/worker-crash.test.ts",
    "a worker killed with SIGKILL mid-transcription: the job is retried and charged once > on PGlite:",
  ],
  [
    "apps/api/test/idempotency-crash.test.ts",
    "an API process that dies between charging a request with an Idempotency-Key and recording its answer > on PGlite:",
  ],
  [
    "apps/api/test/platforms/platform-service-process.test.ts",
    "the service process reads the platforms through VERBATIM_PROXY_URLS and VERBATIM_CA_FILE (postgres) > answers a TikTok and an Instagram link with 202",
  ],
  ["apps/api/test/cli/cli.test.ts", "the CLI without a running service"],
  ["apps/api/test/cli/cli.test.ts", "the CLI with bad input"],
  ["apps/api/test/cli/cli.test.ts", "the CLI while the service runs on the same data directory"],
];

/**
 * Skips CI expects: every test of `file` (relative to the repository) whose full name (its suites
 * and its own name, joined by " > ") starts with `test`, on each pass `engines` names: `embedded`
 * (PGlite, no DATABASE_URL) or `postgres` (DATABASE_URL set).
 */
export const expectedSkips = [
  {
    file: "apps/api/test/platforms/platform-service-process.test.ts",
    test: "the service process reads the platforms through VERBATIM_PROXY_URLS and VERBATIM_CA_FILE (postgres) > answers an Apple Podcasts link",
    engines: ["postgres"],
    why: "an episode link is resolved through the directory before a statement runs; the embedded pass runs it in the service process, its job and charge are those of test/audio/, run on PostgreSQL",
  },
  {
    file: "apps/api/test/youtube/live-youtube.test.ts",
    test: "live YouTube (LIVE_UPSTREAMS=1)",
    engines: ["embedded", "postgres"],
    why: "reaches the real YouTube, which CI never calls; LIVE_UPSTREAMS=1 runs it by hand",
  },
  {
    file: "apps/api/test/platform/postgres-session.test.ts",
    test: "runs the API's statements without JIT compilation, on PostgreSQL",
    engines: ["embedded"],
    why: "PostgreSQL's JIT setting of the API's sessions; the embedded engine has no JIT",
  },
  {
    file: "apps/api/test/platform/prepared-statements.test.ts",
    test: "prepared statements > are parsed once per connection and then only executed again, on PostgreSQL",
    engines: ["embedded"],
    why: "named prepared statements are PostgreSQL's; PGlite's driver parses every statement unnamed",
  },
  {
    file: "apps/api/test/contract-fuzz.test.ts",
    test: "requests generated from the OpenAPI documents > answers 2000 requests of the random seed",
    engines: ["postgres"],
    why: "a random seed runs once, on the embedded pass; the fixed seed runs on both",
  },
  ...postgresOnly.map(([file, test]) => ({ file, test, engines: ["embedded"], why: sharedDatabase })),
  ...embeddedOnly.map(([file, test]) => ({ file, test, engines: ["postgres"], why: dataDirectory })),
];

/** The engine this pass runs on: `postgres` when DATABASE_URL names a server, else `embedded`. */
export function currentEngine() {
  return process.env.DATABASE_URL ? "postgres" : "embedded";
}

/** Whether CI expects the test `fullName` of `file` (relative to the repository) to skip on `engine`. */
export function isExpectedSkip(file, fullName, engine) {
  return expectedSkips.some(
    (skip) => skip.file === file && fullName.startsWith(skip.test) && skip.engines.includes(engine),
  );
}
