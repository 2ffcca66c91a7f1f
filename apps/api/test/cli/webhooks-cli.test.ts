import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { seedDataDirectory } from "@verbatim/testkit/store-template";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { createLogger } from "../../src/logger.ts";
import { createWebhooks } from "../../src/services/webhooks/webhook-deliverer.ts";
import type { WebhookDelivery } from "../../src/services/webhooks/webhook-log.ts";
import { openConfiguredStore } from "../../src/store/open.ts";
import { webhookDeliveries } from "../../src/store/schema.ts";
import { type Receiver, startReceiver } from "../webhooks/receiver.ts";
import { type CommandResult, verbatimInProcess } from "./in-process.ts";

/** `verbatim webhooks list` on a data directory no service holds. */
const commandTimeoutMs = 60_000;

const dataDir = mkdtempSync(join(tmpdir(), "verbatim-webhooks-cli-"));
seedDataDirectory(dataDir);
const env: NodeJS.ProcessEnv = { ...process.env, VERBATIM_DATA_DIR: dataDir };
delete env.DATABASE_URL;

/** Runs `verbatim <args>` in this process; cli.test.ts runs the CLI as a process. */
function verbatim(args: string[]): Promise<CommandResult> {
  return verbatimInProcess(args, env);
}

function described(result: CommandResult): string {
  return `exit ${result.code}\nstdout: ${result.stdout.slice(0, 3000)}\nstderr: ${result.stderr.slice(0, 3000)}`;
}

describe("verbatim webhooks list", () => {
  let receiver: Receiver;
  let accountId: string;
  let deliveredId: string;
  let failedId: string;

  beforeAll(async () => {
    receiver = await startReceiver((request) => ({ status: request.path === "/broken" ? 500 : 200 }));
    const created = await verbatim(["accounts", "create", "--plan", "free"]);
    expect(created.code, described(created)).toBe(0);
    accountId = (JSON.parse(created.stdout) as { account: { id: string } }).account.id;

    // Real deliveries on the data directory, the way the service makes them, while no service holds it.
    const store = await openConfiguredStore(loadConfig(env));
    try {
      const webhooks = createWebhooks(store, {
        logger: createLogger("silent"),
        allowPrivateTargets: true,
        pollIntervalMs: 20,
        retryDelaysMs: [],
      });
      deliveredId = await webhooks.enqueue({ accountId, url: receiver.url("/ok"), type: "first", payload: { n: 1 } });
      failedId = await webhooks.enqueue({ accountId, url: receiver.url("/broken"), type: "second", payload: { n: 2 } });
      webhooks.start();
      const deadline = Date.now() + 10_000;
      while ((await store.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.status, "pending"))).length) {
        if (Date.now() > deadline) throw new Error("the deliveries did not settle");
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await webhooks.stop();
    } finally {
      await store.close();
    }
  }, 2 * commandTimeoutMs);

  afterAll(async () => {
    await receiver?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it(
    "prints the recent deliveries as JSON, newest first, with status and each attempt's answer",
    async () => {
      const result = await verbatim(["webhooks", "list", accountId, "--json"]);
      expect(result.code, described(result)).toBe(0);
      const listed = JSON.parse(result.stdout) as WebhookDelivery[];
      expect(listed, result.stdout).toEqual([
        expect.objectContaining({
          id: failedId,
          event_type: "second",
          url: receiver.url("/broken"),
          status: "failed",
          delivered_at: null,
          attempts: [expect.objectContaining({ attempt: 1, response_status: 500, error: "answered HTTP 500" })],
        }),
        expect.objectContaining({
          id: deliveredId,
          status: "delivered",
          delivered_at: expect.any(String),
          attempts: [expect.objectContaining({ attempt: 1, response_status: 200, error: null })],
        }),
      ]);
    },
    commandTimeoutMs,
  );

  it(
    "prints them for people, and honours --limit",
    async () => {
      const result = await verbatim(["webhooks", "list", accountId, "--limit", "1"]);
      expect(result.code, described(result)).toBe(0);
      expect(result.stdout, described(result)).toContain(`id: ${failedId}`);
      expect(result.stdout, described(result)).toContain("status: failed");
      expect(result.stdout, described(result)).toContain("response_status: 500");
      expect(result.stdout, described(result)).not.toContain(deliveredId);
    },
    commandTimeoutMs,
  );

  it(
    "refuses an unknown account and a bad --limit",
    async () => {
      const unknown = await verbatim(["webhooks", "list", "acct_nope"]);
      expect(unknown.code, described(unknown)).toBe(1);
      expect(unknown.stderr, described(unknown)).toContain("error: No account acct_nope.");
      const badLimit = await verbatim(["webhooks", "list", accountId, "--limit", "0"]);
      expect(badLimit.code, described(badLimit)).not.toBe(0);
      expect(badLimit.stderr, described(badLimit)).toContain('"0" is not a whole number above 0');
    },
    2 * commandTimeoutMs,
  );
});
