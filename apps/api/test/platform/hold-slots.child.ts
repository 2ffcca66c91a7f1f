// A separate API process for processes.test.ts: takes every slot of an account with a short lease,
// says "held", and keeps renewing its leases until it is killed.
import { createPlatform } from "../../src/assembly/platform.ts";
import { openPostgresStore } from "../../src/store/database.ts";

const [url, accountId, slotsArgument, leaseArgument] = process.argv.slice(2);
if (!url || !accountId || !slotsArgument || !leaseArgument) {
  throw new Error("usage: hold-slots.child.ts <database-url> <account-id> <slots> <lease-seconds>");
}
const slots = Number(slotsArgument);
const store = await openPostgresStore(url, { poolSize: 2 });
const platform = await createPlatform(store, { now: () => new Date(), slotLeaseSeconds: Number(leaseArgument) });
let held = 0;
for (let index = 0; index < slots; index++) {
  if (await platform.slots.acquire(accountId, slots)) held++;
}
process.stdout.write(`held ${held}\n`);
// The renewal timer does not keep a process alive; this does, until the parent kills it.
setInterval(() => undefined, 1_000);
