import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { verifyWebhook, WebhookVerificationError } from "../src/index.ts";

const secret = `whsec_${Buffer.from("a secret of the account, 32 bytes").toString("base64")}`;
const body = JSON.stringify({
  type: "transcript_job.failed",
  job_id: "job_01JD7XJ2Q4ZB8N6R0S2T4V6X8Y",
  status: "failed",
  error: {
    code: "no_speech",
    number: 4105,
    message: "No speech.",
    docs: "http://127.0.0.1:8080/docs/errors/no_speech",
  },
});

function signed(payload: string, options: { id?: string; at?: Date; key?: string } = {}) {
  const id = options.id ?? "evt_01JD7XJ2Q4ZB8N6R0S2T4V6X8Y";
  const at = options.at ?? new Date();
  return {
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": new Webhook(options.key ?? secret).sign(id, at, payload),
  };
}

function failure(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("expected verifyWebhook to throw");
}

describe("verifyWebhook", () => {
  it("answers the typed event of a delivery signed with the secret", () => {
    const event = verifyWebhook(body, signed(body), secret);
    expect(event.type).toBe("transcript_job.failed");
    if (event.type !== "transcript_job.failed") throw new Error("narrowing failed");
    expect(event.error.code).toBe("no_speech");
  });

  it("takes fetch Headers, Node's header arrays and a byte body", () => {
    const headers = signed(body);
    expect(verifyWebhook(new TextEncoder().encode(body), new Headers(headers), secret).type).toBe(
      "transcript_job.failed",
    );
    const nodeHeaders = { ...headers, "webhook-signature": [headers["webhook-signature"]] };
    expect(verifyWebhook(Buffer.from(body), nodeHeaders, secret).type).toBe("transcript_job.failed");
  });

  it("accepts a delivery carrying several signatures when one matches, as during a secret rotation", () => {
    const headers = signed(body);
    const other = signed(body, {
      key: `whsec_${Buffer.from("the previous secret, 32 bytes long").toString("base64")}`,
    });
    const both = { ...headers, "webhook-signature": `${other["webhook-signature"]} ${headers["webhook-signature"]}` };
    expect(verifyWebhook(body, both, secret).type).toBe("transcript_job.failed");
  });

  it.each([
    ["a tampered body", () => verifyWebhook(body.replace("no_speech", "unavailable"), signed(body), secret)],
    [
      "another secret",
      () => verifyWebhook(body, signed(body), `whsec_${Buffer.from("x".repeat(32)).toString("base64")}`),
    ],
    [
      "a missing signature",
      () => {
        const { "webhook-signature": _signature, ...rest } = signed(body);
        return verifyWebhook(body, rest, secret);
      },
    ],
    [
      "a timestamp ten minutes old",
      () => verifyWebhook(body, signed(body, { at: new Date(Date.now() - 600_000) }), secret),
    ],
    [
      "a timestamp ten minutes ahead",
      () => verifyWebhook(body, signed(body, { at: new Date(Date.now() + 600_000) }), secret),
    ],
    ["a secret that is not a whsec_ secret", () => verifyWebhook(body, signed(body), "not base64 !")],
    ["a signed body that is not an event", () => verifyWebhook("[1,2]", signed("[1,2]"), secret)],
  ])("throws WebhookVerificationError for %s", (_case, verify) => {
    expect(failure(verify)).toBeInstanceOf(WebhookVerificationError);
  });
});
