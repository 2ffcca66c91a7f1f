import { chmodSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import lockfile from "proper-lockfile";
import { openEmbeddedStore, openPostgresStore, type Store } from "./database.ts";

/** Raised when another process holds the embedded data directory. */
export class DataDirectoryBusyError extends Error {}

/** Where the store lives: `VERBATIM_DATA_DIR` and `DATABASE_URL`, as config.ts reads them. */
export interface StoreLocation {
  dataDir: string;
  databaseUrl: string | undefined;
}

/**
 * Opens the store the configuration names: PostgreSQL when `DATABASE_URL` is set, otherwise
 * PGlite under the data directory. PGlite admits one process, so the embedded store is only
 * opened while holding the data directory's lock; closing the store releases it.
 */
export async function openConfiguredStore(
  config: StoreLocation,
  onConnectionError?: (error: Error) => void,
  onDataDirectoryTightened?: (previousMode: number) => void,
): Promise<Store> {
  if (config.databaseUrl) return openPostgresStore(config.databaseUrl, onConnectionError ? { onConnectionError } : {});
  makePrivateDirectory(config.dataDir, onDataDirectoryTightened);
  let unlock: () => Promise<void>;
  try {
    unlock = await lockfile.lock(config.dataDir, { lockfilePath: join(config.dataDir, "verbatim.lock") });
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code !== "ELOCKED") throw cause;
    throw new DataDirectoryBusyError(`another Verbatim process holds ${config.dataDir}`, { cause });
  }
  try {
    const store = await openEmbeddedStore(join(config.dataDir, "pglite"));
    closeToOthers(config.dataDir);
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

/**
 * Makes the data directory the service's alone: it holds the database (API key hashes, webhook
 * secrets, transcripts) and the operator socket. It is created 0700, an existing one open to
 * others is closed (`onTightened` hears its old mode), and the umask becomes 077 so every file
 * PGlite writes from now on is 0600 (it asks for 0666).
 */
export function makePrivateDirectory(dir: string, onTightened?: (previousMode: number) => void): void {
  process.umask(0o077);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const mode = statSync(dir).mode & 0o777;
  if ((mode & 0o077) !== 0) {
    chmodSync(dir, 0o700);
    onTightened?.(mode);
  }
}

/**
 * Takes group and other access off everything below `dir`. PGlite unpacks its initial database
 * with mode 0666 whatever the umask, and data directories of earlier versions were made open.
 */
function closeToOthers(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isSymbolicLink()) continue;
    const path = join(entry.parentPath, entry.name);
    const mode = statSync(path).mode & 0o777;
    if ((mode & 0o077) !== 0) chmodSync(path, mode & 0o700);
  }
}

/** The admin socket of the service running on a data directory, for the operator CLI. */
export function adminSocketPath(dataDir: string): string {
  return join(dataDir, "admin.sock");
}
