import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";

describe("loadConfig: VERBATIM_ALLOW_PRIVATE_TARGETS", () => {
  it.each([
    [undefined, false],
    ["", false],
    ["0", false],
    ["false", false],
    ["1", true],
    ["true", true],
  ])("reads %j as %s", (value, allowed) => {
    expect(loadConfig(value === undefined ? {} : { VERBATIM_ALLOW_PRIVATE_TARGETS: value }).allowPrivateTargets).toBe(
      allowed,
    );
  });

  it("stops start-up on another value, naming the variable", () => {
    expect(() => loadConfig({ VERBATIM_ALLOW_PRIVATE_TARGETS: "yes please" })).toThrow(
      'VERBATIM_ALLOW_PRIVATE_TARGETS must be 1 or 0, not "yes please"',
    );
  });
});

describe("loadConfig: download limits", () => {
  it("keeps the adapter's defaults when nothing is set", () => {
    expect(loadConfig({}).downloads).toEqual({});
  });

  it("reads VERBATIM_DOWNLOAD_MAX_BYTES and VERBATIM_DOWNLOAD_TIMEOUT_MS", () => {
    expect(
      loadConfig({ VERBATIM_DOWNLOAD_MAX_BYTES: "1073741824", VERBATIM_DOWNLOAD_TIMEOUT_MS: "600000" }).downloads,
    ).toEqual({ downloadMaxBytes: 1_073_741_824, downloadTimeoutMs: 600_000 });
  });

  it("gives YouTube audio streams the same limits as other media, the floor included", () => {
    const config = loadConfig({
      VERBATIM_DOWNLOAD_MAX_BYTES: "1073741824",
      VERBATIM_DOWNLOAD_TIMEOUT_MS: "600000",
      VERBATIM_DOWNLOAD_MIN_BYTES_PER_SECOND: "4096",
    });
    expect(config.downloads).toEqual({
      downloadMaxBytes: 1_073_741_824,
      downloadTimeoutMs: 600_000,
      downloadFloor: { bytesPerSecond: 4096, windowSeconds: 30 },
    });
    expect(config.youtube).toMatchObject(config.downloads);
  });

  it("names the variable that holds a bad value", () => {
    expect(() => loadConfig({ VERBATIM_DOWNLOAD_MAX_BYTES: "2GB" })).toThrow(/VERBATIM_DOWNLOAD_MAX_BYTES/);
    expect(() => loadConfig({ VERBATIM_DOWNLOAD_TIMEOUT_MS: "-1" })).toThrow(/VERBATIM_DOWNLOAD_TIMEOUT_MS/);
  });
});
