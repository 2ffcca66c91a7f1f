import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { storeTemplateVariable } from "@verbatim/testkit/store-template";
import { openEmbeddedStore } from "../../src/store/database.ts";

/**
 * Vitest's global setup: makes the run's migrated embedded store once (see
 * packages/testkit/src/store-template.ts), unless the run is on PostgreSQL or its caller made one.
 * Test processes inherit the variable naming it.
 */
export async function setup(): Promise<(() => void) | undefined> {
  if (process.env.DATABASE_URL || process.env[storeTemplateVariable]) return undefined;
  // In memory where the machine has a tmpfs: creating a cluster on disk waits on an fsync per file.
  const base = existsSync("/dev/shm") ? "/dev/shm" : tmpdir();
  const directory = mkdtempSync(join(base, "verbatim-store-template-"));
  const dataDir = join(directory, "pglite");
  // The service makes its data directory's files private (store/open.ts); copies of these must be too.
  const umask = process.umask(0o077);
  try {
    const store = await openEmbeddedStore(dataDir);
    await store.close();
    const pglite = await PGlite.create(dataDir);
    writeFileSync(join(directory, "pglite.tar"), Buffer.from(await (await pglite.dumpDataDir("none")).arrayBuffer()));
    await pglite.close();
  } finally {
    process.umask(umask);
  }
  process.env[storeTemplateVariable] = directory;
  return () => {
    delete process.env[storeTemplateVariable];
    rmSync(directory, { recursive: true, force: true });
  };
}
