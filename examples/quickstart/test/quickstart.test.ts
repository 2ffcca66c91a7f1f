import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Verbatim } from "@verbatim/sdk";
import { startVerbatim, type VerbatimService } from "@verbatim/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { quickstart } from "../src/quickstart.ts";

const run = promisify(execFile);
const examplePackage = fileURLToPath(new URL("..", import.meta.url));

let server: VerbatimService;
beforeAll(async () => {
  server = await startVerbatim({ from: import.meta.url, plan: "basic", credits: 250 });
});
afterAll(() => server?.close());

describe("the quickstart example", () => {
  it("prints the service, the account, its balance and its allowance", async () => {
    const lines: string[] = [];
    const verbatim = new Verbatim({ apiKey: server.apiKey, baseUrl: server.baseUrl });
    await quickstart(verbatim, (line) => lines.push(line));
    expect(lines).toEqual([
      `verbatim ${server.version} is up at ${server.baseUrl}/api/v2`,
      `account ${server.accountId} on the basic plan`,
      "credits: 250",
      "requests left this minute: 60 of 60",
    ]);
  });

  it("rejects with the API's unauthorized error for a refused key", async () => {
    const verbatim = new Verbatim({ apiKey: `vb_live_${"0".repeat(32)}`, baseUrl: server.baseUrl });
    await expect(quickstart(verbatim, () => undefined)).rejects.toMatchObject({ status: 401, code: "unauthorized" });
  });

  it("runs as `pnpm start`, configured by VERBATIM_API_KEY and VERBATIM_BASE_URL", async () => {
    const { stdout } = await run(process.execPath, ["--import", "tsx", "src/main.ts"], {
      cwd: examplePackage,
      env: { ...process.env, VERBATIM_API_KEY: server.apiKey, VERBATIM_BASE_URL: server.baseUrl },
    });
    expect(stdout).toContain(`account ${server.accountId} on the basic plan`);
  });

  it("exits 1 with the error's code when the key is refused, and 2 without a key", async () => {
    const refused = run(process.execPath, ["--import", "tsx", "src/main.ts"], {
      cwd: examplePackage,
      env: { ...process.env, VERBATIM_API_KEY: `vb_live_${"0".repeat(32)}`, VERBATIM_BASE_URL: server.baseUrl },
    });
    await expect(refused).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/^unauthorized: /) });
    const { VERBATIM_API_KEY: _key, ...withoutKey } = process.env;
    const keyless = run(process.execPath, ["--import", "tsx", "src/main.ts"], { cwd: examplePackage, env: withoutKey });
    await expect(keyless).rejects.toMatchObject({ code: 2 });
  });
});
