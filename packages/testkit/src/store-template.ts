import { cpSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Where a test run keeps its migrated embedded store: a data directory (`pglite/`) and its dump
 * (`pglite.tar`), made once per run by apps/api/test/support/store-template-setup.ts. Creating a
 * PGlite cluster and running every migration costs seconds of CPU and, on disk, tens of seconds
 * of a loaded machine's fsyncs; starting from the template costs a tenth of that.
 */
export const storeTemplateVariable = "VERBATIM_TEST_STORE_TEMPLATE";

function templateDirectory(): string | null {
  const directory = process.env[storeTemplateVariable];
  return directory && existsSync(join(directory, "pglite.tar")) ? directory : null;
}

/** The template's dump, for an in-memory store to load; null outside a run that made one. */
export function storeTemplateDump(): Blob | null {
  const directory = templateDirectory();
  return directory ? new Blob([readFileSync(join(directory, "pglite.tar"))]) : null;
}

/**
 * Gives a service's fresh data directory the template's migrated store, so the service opens it
 * instead of creating one; without a template the service creates its own, as a user's does.
 */
export function seedDataDirectory(dataDir: string): void {
  const directory = templateDirectory();
  if (directory) cpSync(join(directory, "pglite"), join(dataDir, "pglite"), { recursive: true });
}
