// A separate worker process for webhooks.test.ts: delivers the database's webhooks with slots
// leased for a short time, says "delivering", and keeps going until it is killed.
import { createLogger } from "../../src/logger.ts";
import { createWebhooks } from "../../src/services/webhooks/webhook-deliverer.ts";
import { openPostgresStore } from "../../src/store/database.ts";

const [url, leaseArgument] = process.argv.slice(2);
if (!url || !leaseArgument) throw new Error("usage: deliver-webhooks.child.ts <database-url> <lease-seconds>");
const store = await openPostgresStore(url, { poolSize: 2 });
const webhooks = createWebhooks(store, {
  logger: createLogger("silent"),
  allowPrivateTargets: true,
  pollIntervalMs: 20,
  attemptTimeoutMs: 60_000,
  retryDelaysMs: [],
  slotLeaseSeconds: Number(leaseArgument),
});
webhooks.start();
process.stdout.write("delivering\n");
// The poll timer ends when the deliverer stops; this keeps the process alive until the parent kills it.
setInterval(() => undefined, 1_000);
