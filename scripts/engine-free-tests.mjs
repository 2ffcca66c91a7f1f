// CI runs the test suite twice, on the embedded engine and on PostgreSQL. A test file the engine
// cannot change the outcome of ran on the embedded pass, so the PostgreSQL pass leaves it out:
// - a file whose imports never reach the store, which cannot see which engine runs. A file
//   reaches the store when it imports, directly or through its relative imports (type-only
//   imports aside), the store's modules or the API package, or starts the API as a process;
// - a file `engineIndependent` names, with why: it reaches the store, but what it asserts does
//   not depend on which engine answers.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const apiRoot = join(repositoryRoot, "apps/api");
const storeModules = new Set(["src/store/database.ts", "src/store/open.ts"].map((path) => join(apiRoot, path)));
const relativeImport = /(?:\bfrom|\bimport)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g;
const typeOnlyImport = /^\s*(?:import|export)\s+type\s[^;]*?\bfrom\s*["'][^"']+["'];?/gm;
const reachesTheStoreDirectly = /["']@verbatim\/api(?:\/[^"']*)?["']|\bsrc\/main\.ts\b|\bDATABASE_URL\b/;

/**
 * Test files, or folders of them, that reach the store but whose assertions the engine cannot
 * change, relative to the repository. Clients of the API (the SDKs, the MCP server, the
 * examples, the Postman collection, the dashboard in a browser) are among them: the server
 * answers them through the routes and services the API's own tests assert on both engines, so
 * on PostgreSQL they could only fail where those tests fail too.
 */
export const engineIndependent = new Map([
  ["apps/api/src/config.test.ts", "reads configurations of environments it builds, never the process's DATABASE_URL"],
  ["apps/api/test/audio-sources/config.test.ts", "reads configurations of environments it builds"],
  ["apps/api/src/platforms-config.test.ts", "reads configurations of environments it builds"],
  [
    "apps/api/test/asr/speech-engine-config.test.ts",
    "speech settings; the one service it starts has DATABASE_URL emptied and stops before its store opens",
  ],
  ["apps/api/test/v1/errors.test.ts", "maps v2's error table onto v1's; it opens no store"],
  ["apps/api/test/deploy/deployment-files.test.ts", "reads the Dockerfile and compose.yaml; it opens no store"],
  [
    "apps/api/test/cli/webhooks-cli.test.ts",
    "empties DATABASE_URL for the CLI and itself: the same embedded data directory on either pass",
  ],
  [
    "apps/api/test/contract.test.ts",
    "compares the server's route table with the contract; the server is started only for its dependencies",
  ],
  [
    "apps/api/test/request-validation.test.ts",
    "the validator's 400 and 413 come before any handler; requests that pass are only asserted not to be 400",
  ],
  [
    "apps/api/test/hostile-requests.test.ts",
    "body parsing, issue lists, callback_url checks and Host headers, all before a handler reads the store",
  ],
  ["apps/api/test/docs", "serves the contract and its reference page, which no store content changes"],
  [
    "apps/api/test/many-cues.test.ts",
    "parses caption files of hundreds of thousands of cues; the store keeps a transcript's segments as one value on either engine",
  ],
  [
    "apps/api/test/fetched-text.test.ts",
    "what ingestion removes from fetched text; PGlite refuses a NUL in text as PostgreSQL does, being PostgreSQL",
  ],
  [
    "apps/api/test/audio-sources/hostile-documents.test.ts",
    "how hostile feeds and pages are parsed and refused; the store sees only the refusal",
  ],
  [
    "apps/api/test/platforms/platform-transcripts.test.ts",
    "yt-dlp's reading of each platform; its transcripts are stored and charged by the statements test/audio/ asserts on PostgreSQL",
  ],
  [
    "apps/api/test/podcast-links/podcast-links-http.test.ts",
    "Apple Podcasts and Spotify links read through the double and refused; their transcripts are stored and charged by the statements test/audio/ asserts on PostgreSQL",
  ],
  [
    "apps/api/test/platforms/platform-limits.test.ts",
    "the caps of yt-dlp's calls and the sidecar's shares, held in the process; charging as in test/audio/",
  ],
  [
    "apps/api/test/platforms/caption-languages.test.ts",
    "a platform item's tracks as yt-dlp lists them, charging nothing",
  ],
  [
    "apps/api/test/audio/youtube-audio.test.ts",
    "YouTube's audio streams and their recognition; the job and its charge are test/audio/transcript-jobs.test.ts's, run on PostgreSQL",
  ],
  [
    "apps/api/test/wire-compatibility.test.ts",
    "compares answers' shapes with the hosted service's; contract-fuzz's fixed seed validates every answer on PostgreSQL",
  ],
  [
    "apps/api/test/v1/wire-compatibility.test.ts",
    "v1's shapes against the hosted v1 document; v1 runs v2's routes, whose answers contract-fuzz validates on PostgreSQL",
  ],
  [
    "apps/api/test/platform/data-directory.test.ts",
    "opens PGlite on a data directory of its own, the embedded engine whichever pass runs it",
  ],
  [
    "apps/api/test/platforms/profile-lists.test.ts",
    "yt-dlp's listing of profiles; its pages are charged and its cursors stored by the statements test/lists/ asserts on PostgreSQL",
  ],
  [
    "apps/api/test/lists/feed-lists.test.ts",
    "how feeds are read and refused as lists; their pages are charged and their cursors stored as test/lists/http.test.ts asserts on PostgreSQL",
  ],
  [
    "apps/api/test/lists/youtube-rows.test.ts",
    "what YouTube's rows carry and that their urls read as those videos; charging as in test/lists/ and test/youtube/",
  ],
  [
    "apps/api/test/platforms/platform-ytdlp-absent.test.ts",
    "refuses the platforms' links before any statement of theirs runs: without yt-dlp nothing is read or charged",
  ],
  [
    "apps/api/test/platforms/platform-extractors.test.ts",
    "the operator's allow-list, applied before yt-dlp runs; the item it allows is stored and charged as in test/audio/",
  ],
  [
    "apps/api/test/live/clients.test.ts",
    "the Node SDK, its command line and the MCP tools as clients of live sessions; the sessions' store, leases and charges are asserted by the other files of test/live/, run on PostgreSQL",
  ],
  [
    "apps/api/test/platforms/platform-no-network.test.ts",
    "a refused connection answers 503 before anything is stored or charged",
  ],
  [
    "apps/api/test/platforms/platform-surfaces.test.ts",
    "platform items through the batch, v1, MCP and the library: the statements test/batch, test/v1 and test/library assert on PostgreSQL",
  ],
  [
    "apps/api/test/nul-characters.test.ts",
    "the validator refuses a NUL before a handler runs; the same requests without one are only asserted to be answered",
  ],
  [
    "apps/api/test/request-bodies.test.ts",
    "declared, slow and oversized bodies, refused while they are read, before a handler runs",
  ],
  ["apps/api/test/content-types.test.ts", "which content types reach the validator, before a handler runs"],
  [
    "apps/api/test/youtube/transcript-formats.test.ts",
    "how a transcript is written (SubRip, WebVTT, chunks); it is read and charged as in transcripts-video.test.ts, which runs on PostgreSQL",
  ],
  [
    "apps/api/test/audio/job-formats.test.ts",
    "how a finished job's transcript is written; the job and its charge are transcript-jobs.test.ts's, run on PostgreSQL",
  ],
  [
    "apps/api/test/lists/refused-references.test.ts",
    "list inputs that name no list, refused before the credit check and any statement of the list",
  ],
  ["apps/api/test/support/server.test.ts", "a test server's validators are compiled when it starts"],
  ["scripts/test", "the test runner's own scripts, run on suites of their own"],
  ["apps/api/test/dashboard/journey.browser.test.ts", "the dashboard's pages; dashboard/api.test.ts asserts its API"],
  ["apps/api/test/sdk", "the Node SDK, a client"],
  ["apps/api/test/mcp", "the MCP server, a client of the API through the Node SDK"],
  ["apps/api/test/postman", "the Postman collection, a client"],
  ["examples", "the examples, clients"],
]);

/** The test files under `projectRoot` that the PostgreSQL pass leaves out, relative to it; none on the embedded pass. */
export function engineFreeTestsOnSecondPass(configUrl) {
  if (!process.env.DATABASE_URL) return [];
  const projectRoot = dirname(fileURLToPath(configUrl));
  return testFiles(projectRoot)
    .filter((file) => namedEngineIndependent(file) || !reachesTheStore(file, new Set()))
    .map((file) => relative(projectRoot, file));
}

function namedEngineIndependent(file) {
  const path = relative(repositoryRoot, file);
  return [...engineIndependent.keys()].some((named) => path === named || path.startsWith(`${named}/`));
}

function reachesTheStore(file, seen) {
  if (seen.has(file)) return false;
  seen.add(file);
  if (storeModules.has(file)) return true;
  if (!existsSync(file) || !statSync(file).isFile()) return false;
  // A type-only import is erased before the file runs: it reaches nothing.
  const text = readFileSync(file, "utf8").replace(typeOnlyImport, "");
  if (reachesTheStoreDirectly.test(text)) return true;
  for (const [, specifier] of text.matchAll(relativeImport)) {
    if (reachesTheStore(resolve(dirname(file), specifier), seen)) return true;
  }
  return false;
}

function testFiles(directory) {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === "node_modules" || entry.name === "dist" || entry.name.startsWith(".")) return [];
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith(".test.ts") ? [path] : [];
  });
}
