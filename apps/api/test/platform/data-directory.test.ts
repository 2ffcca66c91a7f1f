import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openConfiguredStore } from "../../src/store/open.ts";

/** Every file and directory below `dir`, with its permission bits. */
function modesBelow(dir: string): { path: string; mode: number }[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true }).map((entry) => {
    const path = join(entry.parentPath, entry.name);
    return { path, mode: statSync(path).mode & 0o777 };
  });
}

describe("the embedded data directory is private to the service's user", () => {
  const parent = mkdtempSync(join(tmpdir(), "verbatim-data-dir-"));
  afterAll(() => rmSync(parent, { recursive: true, force: true }));

  it("creates the directory 0700 and every database file without group or other access", async () => {
    const dataDir = join(parent, "fresh");
    const store = await openConfiguredStore({ dataDir, databaseUrl: undefined });
    try {
      expect(statSync(dataDir).mode & 0o777).toBe(0o700);
      const entries = modesBelow(dataDir);
      expect(entries.some((entry) => entry.path.includes("pg_wal"))).toBe(true);
      expect(entries.filter((entry) => (entry.mode & 0o077) !== 0)).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it("tightens an existing directory that others could read, and says so", async () => {
    const dataDir = join(parent, "open");
    mkdirSync(dataDir);
    // As an earlier version left it (chmod, because the process's umask may already be 077).
    chmodSync(dataDir, 0o755);
    const tightened: number[] = [];
    const store = await openConfiguredStore({ dataDir, databaseUrl: undefined }, undefined, (previous) =>
      tightened.push(previous),
    );
    await store.close();
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(tightened.map((mode) => mode.toString(8))).toEqual(["755"]);
  });
});
