import { monotonicFactory } from "ulid";

/** The prefixes of Verbatim's ids, as the wire format names them. */
export type IdPrefix = "req" | "acct" | "key" | "ses" | "job" | "mon" | "evt" | "whsec" | "slot" | "wrk";

const nextUlid = monotonicFactory();

/** A new time-ordered id with its prefix, such as `req_01JD7XH0V6Q8M2F4A9C3K5T7W1`. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${nextUlid()}`;
}
