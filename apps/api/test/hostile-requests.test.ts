import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AudioServer, startAudioServer } from "./audio/harness.ts";
import { type ErrorBodyShape, expectErrorEnvelope, send } from "./support/http.ts";

/** A raw HTTP/1.1 request, sending headers (such as a hostile Host) that fetch would refuse or rewrite. */
function rawRequest(
  baseUrl: string,
  options: { method: string; path: string; headers: Record<string, string>; body?: string },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method: options.method,
        path: options.path,
        headers: options.headers,
        setHost: false,
      },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          text += chunk;
        });
        response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text }));
      },
    );
    outgoing.on("error", reject);
    outgoing.end(options.body);
  });
}

let server: AudioServer;

beforeAll(async () => {
  // callback_url checks apply as in production: https only, public addresses only.
  server = await startAudioServer({ workers: 0 });
});
afterAll(() => server?.close());

describe("bodies are read only by operations that take one, after the key is checked", () => {
  it("does not parse a body sent to a GET operation: broken JSON to GET /me is answered 200", async () => {
    const url = new URL(server.baseUrl);
    const answer = await rawRequest(server.baseUrl, {
      method: "GET",
      path: "/api/v2/me",
      headers: {
        host: url.host,
        authorization: `Bearer ${server.key.key}`,
        "content-type": "application/json",
        "content-length": "9",
      },
      body: "{not json",
    });
    expect(answer.status, answer.text).toBe(200);
  });

  it("does not parse a body sent to an unknown path: 404, not a JSON error", async () => {
    const answer = await send(server, {
      method: "POST",
      path: "/api/v2/no-such-operation",
      raw: "{not json",
      headers: { "content-type": "application/json" },
    });
    expectErrorEnvelope(answer, 404, "not_found");
  });

  it("answers 401 to a 1 MiB nested body without a key, and still parses a keyed one", async () => {
    const nested = `${"[".repeat(512 * 1024)}${"]".repeat(512 * 1024)}`;
    const stranger = await send(server, {
      method: "POST",
      path: "/api/v2/transcripts/video",
      raw: nested,
      headers: { "content-type": "application/json" },
      authorized: false,
    });
    expectErrorEnvelope(stranger, 401, "unauthorized");
    const keyed = await send(server, {
      method: "POST",
      path: "/api/v2/transcripts/video",
      raw: "{not json",
      headers: { "content-type": "application/json" },
    });
    expectErrorEnvelope(keyed, 400, "invalid_request");
  });
});

describe("400 invalid_request lists at most 50 issues", () => {
  it("answers the first 50 of 80,000 unknown fields with truncated: true, in a small answer", async () => {
    const body: Record<string, unknown> = { video: "jNQXAC9IVRw" };
    for (let index = 0; index < 80_000; index++) body[`k${index}`] = 1;
    const answer = await send(server, { method: "POST", path: "/api/v2/transcripts/video", json: body });
    expectErrorEnvelope(answer, 400, "invalid_request");
    const error = (answer.body as ErrorBodyShape & { error: { truncated?: boolean } }).error;
    expect(error.issues).toHaveLength(50);
    expect(error.truncated).toBe(true);
    expect(answer.text.length).toBeLessThan(20_000);
  });

  it("sends no truncated flag when every issue is listed", async () => {
    const answer = await send(server, { method: "POST", path: "/api/v2/transcripts/video", json: { video: "" } });
    expectErrorEnvelope(answer, 400, "invalid_request");
    expect((answer.body as { error: Record<string, unknown> }).error).not.toHaveProperty("truncated");
  });
});

describe("400 for a callback_url delivery could never use", () => {
  it.each([
    ["https://xn--/h", "an invalid punycode host"],
    ["https://%E2%80%AE.com/", "a percent-encoded control character in the host"],
    ["https://example.com:99999/h", "a port above 65535"],
  ])("refuses %s (%s), which the uri format admits", async (callbackUrl) => {
    const answer = await send(server, {
      method: "POST",
      path: "/api/v2/transcripts/video",
      json: { video: server.host.url("/media/any.mp3"), callback_url: callbackUrl },
    });
    expectErrorEnvelope(answer, 400, "invalid_request");
    expect((answer.body as ErrorBodyShape).error?.issues).toEqual([
      { path: "/body/callback_url", message: expect.stringContaining("WHATWG") },
    ]);
  });

  it("refuses a callback_url carrying a user name and password", async () => {
    const answer = await send(server, {
      method: "POST",
      path: "/api/v2/transcripts/video",
      json: { video: server.host.url("/media/any.mp3"), callback_url: "https://user:pw@hooks.example.com/h" },
    });
    expectErrorEnvelope(answer, 400, "invalid_request");
    expect((answer.body as ErrorBodyShape).error?.issues).toEqual([
      { path: "/body/callback_url", message: "must not carry a user name or password" },
    ]);
  });
});

describe("the Host and X-Forwarded-Proto headers are not echoed unless well formed", () => {
  const unknownJob = "/api/v2/transcripts/jobs/job_00000000000000000000000000";
  const docsOf = (text: string) => (JSON.parse(text) as { error: { docs: string } }).error.docs;

  it("builds error.docs from a well-formed Host", async () => {
    const answer = await rawRequest(server.baseUrl, {
      method: "GET",
      path: unknownJob,
      headers: { host: "api.example.com:8443", authorization: `Bearer ${server.key.key}` },
    });
    expect(answer.status, answer.text).toBe(404);
    expect(docsOf(answer.text)).toBe("http://api.example.com:8443/docs/errors/not_found");
  });

  it("ignores a Host that carries markup, answering with the address the connection reached", async () => {
    const answer = await rawRequest(server.baseUrl, {
      method: "GET",
      path: unknownJob,
      headers: { host: 'evil.example"><script>alert(1)</script>', authorization: `Bearer ${server.key.key}` },
    });
    expect(answer.text).not.toContain("<script>");
    expect(answer.text).not.toContain("evil.example");
    expect(docsOf(answer.text)).toBe(`${server.baseUrl}/docs/errors/not_found`);
  });

  it("takes only http or https from X-Forwarded-Proto of a loopback proxy", async () => {
    const forwarded = (proto: string) =>
      rawRequest(server.baseUrl, {
        method: "GET",
        path: unknownJob,
        headers: { host: "api.example.com", "x-forwarded-proto": proto, authorization: `Bearer ${server.key.key}` },
      });
    expect(docsOf((await forwarded("https")).text)).toBe("https://api.example.com/docs/errors/not_found");
    expect(docsOf((await forwarded("javascript")).text)).toBe("http://api.example.com/docs/errors/not_found");
  });
});
