import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../../../apps/api/test/support/server.ts";
import { quickstart } from "../src/quickstart.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ plan: "basic", credits: 250 });
});
afterAll(() => server.close());

describe("the quickstart example", () => {
  it("prints the service, the account, its balance and its allowance", async () => {
    const lines: string[] = [];
    await quickstart({ baseUrl: server.baseUrl, apiKey: server.key.key, print: (line) => lines.push(line) });
    expect(lines).toEqual([
      "verbatim 0.0.0-test is up",
      `account ${server.account.id} on the basic plan`,
      "credits: 250",
      "requests left this minute: 60 of 60",
    ]);
  });

  it("explains a refused key", async () => {
    const refused = quickstart({
      baseUrl: server.baseUrl,
      apiKey: `vb_live_${"0".repeat(32)}`,
      print: () => undefined,
    });
    await expect(refused).rejects.toThrow("the key was refused: unauthorized");
  });
});
