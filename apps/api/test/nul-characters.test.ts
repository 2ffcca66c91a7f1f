import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MonitorHarness, startMonitorHarness } from "./monitors/harness.ts";
import { expectErrorEnvelope, expectIssueAt, send } from "./support/http.ts";

// Found by the contract fuzz (contract-fuzz.test.ts): the contract's strings allow U+0000, which
// PostgreSQL's text cannot hold, so a monitor id of "%00" failed in its lookup as a 500.
let h: MonitorHarness;
beforeAll(async () => {
  h = await startMonitorHarness();
});
afterAll(() => h.close());

describe("a NUL character anywhere in the input is a 400, never a 500", () => {
  it("refuses it in a path parameter", async () => {
    const answer = await send(h.server, { method: "DELETE", path: "/api/v2/monitors/%00" });
    expectErrorEnvelope(answer, 400, "invalid_request");
    expectIssueAt(answer, "/params/monitorId");
  });

  it("refuses it in a query parameter", async () => {
    const answer = await send(h.server, { method: "GET", path: "/api/v2/monitors?since=evt_%00" });
    expectErrorEnvelope(answer, 400, "invalid_request");
    expectIssueAt(answer, "/query/since");
  });

  it("refuses it in a string of the body, nested or not", async () => {
    const search = await send(h.server, {
      method: "POST",
      path: "/api/v2/library/search",
      json: { query: "a\u0000b" },
    });
    expectErrorEnvelope(search, 400, "invalid_request");
    expectIssueAt(search, "/body/query");
    const batch = await send(h.server, {
      method: "POST",
      path: "/api/v2/transcripts/batch",
      json: { video_ids: ["GJLlxj_dtq8", "\u0000"] },
    });
    expectErrorEnvelope(batch, 400, "invalid_request");
    expectIssueAt(batch, "/body/video_ids/1");
  });

  it("refuses it in v1 too, in v1's envelope", async () => {
    const answer = await send(h.server, {
      method: "POST",
      path: "/api/v1/transcripts/search",
      json: { query: "\u0000" },
    });
    expect(answer.status, answer.text).toBe(400);
    expect((answer.body as { error?: { code?: string } }).error?.code, answer.text).toBe("invalid_request");
  });

  it("still serves the same requests without the NUL", async () => {
    const answer = await send(h.server, { method: "DELETE", path: "/api/v2/monitors/mon_unknown" });
    expectErrorEnvelope(answer, 404, "not_found");
  });
});
