// CI runs the test suite twice, on the embedded engine and on PostgreSQL. A test file whose
// imports never reach the store cannot see which engine runs, so the PostgreSQL pass leaves it
// out: it ran on the embedded pass. A file reaches the store when it imports, directly or through
// its relative imports, the store's modules or the API package, or starts the API as a process.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const apiRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../apps/api");
const storeModules = new Set(["src/store/database.ts", "src/store/open.ts"].map((path) => join(apiRoot, path)));
const relativeImport = /(?:\bfrom|\bimport)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g;
const reachesTheStoreDirectly = /["']@verbatim\/api(?:\/[^"']*)?["']|\bsrc\/main\.ts\b|\bDATABASE_URL\b/;

/** The test files under `projectRoot` that the PostgreSQL pass leaves out, relative to it; none on the embedded pass. */
export function engineFreeTestsOnSecondPass(configUrl) {
  if (!process.env.DATABASE_URL) return [];
  const projectRoot = dirname(fileURLToPath(configUrl));
  return testFiles(projectRoot)
    .filter((file) => !reachesTheStore(file, new Set()))
    .map((file) => relative(projectRoot, file));
}

function reachesTheStore(file, seen) {
  if (seen.has(file)) return false;
  seen.add(file);
  if (storeModules.has(file)) return true;
  if (!existsSync(file) || !statSync(file).isFile()) return false;
  const text = readFileSync(file, "utf8");
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
