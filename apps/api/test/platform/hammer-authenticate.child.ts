// A separate API process for processes.test.ts: once told "go" on stdin, authenticates
// one key `attempts` times in parallel at the instant given, and prints how many were admitted.
import { createInterface } from "node:readline";
import { Authenticator } from "../../src/services/accounts/authenticator.ts";
import { openPostgresStore } from "../../src/store/database.ts";

const [url, secretHash, attemptsArgument, nowArgument] = process.argv.slice(2);
if (!url || !secretHash || !attemptsArgument || !nowArgument) {
  throw new Error("usage: hammer-authenticate.child.ts <database-url> <secret-hash> <attempts> <now-iso>");
}
const store = await openPostgresStore(url, { poolSize: 10 });
const authenticator = new Authenticator(store);
const now = new Date(nowArgument);
process.stdout.write("ready\n");

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (line.trim() !== "go") continue;
  const results = await Promise.all(
    Array.from({ length: Number(attemptsArgument) }, () => authenticator.authenticate(secretHash, "request", now)),
  );
  const admitted = results.filter((result) => result?.admitted).length;
  const refused = results.filter((result) => result?.admitted === false).length;
  process.stdout.write(`${JSON.stringify({ admitted, refused })}\n`);
  break;
}
lines.close();
await store.close();
