import { randomFillSync } from "node:crypto";
import { monotonicFactory } from "ulid";

/** The prefixes of Verbatim's ids, as the wire format names them. */
export type IdPrefix = "req" | "acct" | "key" | "ses" | "job" | "mon" | "evt" | "whsec" | "slot" | "wrk" | "live";

/**
 * Random bytes drawn from the CSPRNG a pool at a time: ulid's own generator asks it for one byte per
 * character, sixteen calls per id, which every request paid for its `request_id`.
 */
const randomPool = new Uint8Array(4096);
let randomPoolUsed = randomPool.length;

function randomFraction(): number {
  if (randomPoolUsed === randomPool.length) {
    randomFillSync(randomPool);
    randomPoolUsed = 0;
  }
  return (randomPool[randomPoolUsed++] ?? 0) / 256;
}

const nextUlid = monotonicFactory(randomFraction);

/** A new time-ordered id with its prefix, such as `req_01JD7XH0V6Q8M2F4A9C3K5T7W1`. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${nextUlid()}`;
}
