import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findYtdlp } from "./find-ytdlp.ts";

describe("findYtdlp", () => {
  let scratch: string;
  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), "verbatim-find-ytdlp-"));
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("takes a virtual environment's interpreter when VERBATIM_YTDLP names its directory", () => {
    const venv = join(scratch, "venv");
    mkdirSync(join(venv, "bin"), { recursive: true });
    writeFileSync(join(venv, "bin", "python"), "");
    expect(findYtdlp({ VERBATIM_YTDLP: venv })).toEqual({
      python: join(venv, "bin", "python"),
      origin: "VERBATIM_YTDLP",
    });
  });

  it("takes a file that is no zip archive for the interpreter itself", () => {
    const python = join(scratch, "python3.12");
    writeFileSync(python, "\x7fELF not a zip archive");
    expect(findYtdlp({ VERBATIM_YTDLP: python })).toEqual({ python, origin: "VERBATIM_YTDLP" });
  });

  it("refuses a name that does not exist, or a directory that is no virtual environment", () => {
    expect(() => findYtdlp({ VERBATIM_YTDLP: join(scratch, "missing") })).toThrow(/does not exist/);
    const plain = join(scratch, "plain");
    mkdirSync(plain);
    expect(() => findYtdlp({ VERBATIM_YTDLP: plain })).toThrow(/no virtual environment/);
  });
});
