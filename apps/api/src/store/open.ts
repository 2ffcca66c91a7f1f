import { mkdirSync } from "node:fs";
import { join } from "node:path";
import lockfile from "proper-lockfile";
import type { Config } from "../config.ts";
import { openEmbeddedStore, openPostgresStore, type Store } from "./database.ts";

/** Raised when another process holds the embedded data directory. */
export class DataDirectoryBusyError extends Error {}

/**
 * Opens the store the configuration names: PostgreSQL when `DATABASE_URL` is set, otherwise
 * PGlite under the data directory. PGlite admits one process, so the embedded store is only
 * opened while holding the data directory's lock; closing the store releases it.
 */
export async function openConfiguredStore(
  config: Pick<Config, "dataDir" | "databaseUrl">,
  onConnectionError?: (error: Error) => void,
): Promise<Store> {
  if (config.databaseUrl) return openPostgresStore(config.databaseUrl, onConnectionError ? { onConnectionError } : {});
  mkdirSync(config.dataDir, { recursive: true });
  let unlock: () => Promise<void>;
  try {
    unlock = await lockfile.lock(config.dataDir, { lockfilePath: join(config.dataDir, "verbatim.lock") });
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code !== "ELOCKED") throw cause;
    throw new DataDirectoryBusyError(`another Verbatim process holds ${config.dataDir}`, { cause });
  }
  try {
    const store = await openEmbeddedStore(join(config.dataDir, "pglite"));
    return {
      ...store,
      async close() {
        await store.close();
        await unlock();
      },
    };
  } catch (error) {
    await unlock();
    throw error;
  }
}

/** The admin socket of the service running on a data directory, for the operator CLI. */
export function adminSocketPath(dataDir: string): string {
  return join(dataDir, "admin.sock");
}
