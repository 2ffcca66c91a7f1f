import { describe, expect, it } from "vitest";
import type { Authentication } from "./authenticator.ts";
import { ToolCallAdmissions } from "./tool-call-admissions.ts";

const allowance = { limit: 60, remaining: 59, resetAt: new Date(0) };

function admitted(keyId: string): Authentication {
  return {
    accountId: "acct_1",
    keyId,
    plan: "free",
    credits: 10,
    admitted: true,
    allowance,
    requestAllowance: allowance,
  };
}

describe("ToolCallAdmissions", () => {
  it("gives each held admission once, to the key that was admitted, of the allowance it counted", () => {
    const admissions = new ToolCallAdmissions();
    const held = admissions.hold("hash-a", [{ allowance: "request", auth: admitted("key_a") }]);
    expect(admissions.take(held.ticket, "hash-b", "request")).toBeUndefined();
    expect(admissions.take(held.ticket, "hash-a", "poll")).toBeUndefined();
    expect(admissions.take(held.ticket, "hash-a", "request")?.keyId).toBe("key_a");
    expect(admissions.take(held.ticket, "hash-a", "request")).toBeUndefined();
  });

  it("keeps nothing after release, and nothing of another instance's tickets", () => {
    const admissions = new ToolCallAdmissions();
    const held = admissions.hold("hash-a", [{ allowance: "request", auth: admitted("key_a") }]);
    expect(new ToolCallAdmissions().take(held.ticket, "hash-a", "request")).toBeUndefined();
    held.release();
    expect(admissions.take(held.ticket, "hash-a", "request")).toBeUndefined();
    expect(admissions.take(undefined, "hash-a", "request")).toBeUndefined();
  });
});
