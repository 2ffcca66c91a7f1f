import { eventually } from "@verbatim/testkit/eventually";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { runAdminCommand } from "../../src/admin/commands.ts";
import { createLogger } from "../../src/logger.ts";
import { sessionLifetimeMs, signInLinkLifetimeMs } from "../../src/services/accounts/dashboard-session-terms.ts";
import { createWebhooks } from "../../src/services/webhooks/webhook-deliverer.ts";
import { type Answer, expectErrorEnvelope, expectIssueAt, send } from "../support/http.ts";
import { startServer, type TestServer } from "../support/server.ts";

// biome-ignore lint/suspicious/noExplicitAny: bodies are read loosely and asserted field by field.
type Loose = any;

let server: TestServer;
/** Moves the server's clock, to expire links and sessions. */
let clockOffsetMs = 0;

beforeAll(async () => {
  server = await startServer({ now: () => new Date(Date.now() + clockOffsetMs), credits: 500 });
});
afterAll(() => server?.close());

/** A signed-in dashboard: its cookie and CSRF token. */
interface Session {
  cookie: string;
  csrfToken: string;
  answer: Answer;
}

async function signIn(body: Record<string, unknown>): Promise<Session> {
  const answer = await send(server, { method: "POST", path: "/dashboard/api/session", json: body, authorized: false });
  expect(answer.status, answer.text).toBe(200);
  const setCookie = answer.headers.getSetCookie()[0] ?? "";
  return { cookie: setCookie.split(";")[0] ?? "", csrfToken: (answer.body as Loose).data.csrf_token, answer };
}

/** A session opened by a one-time link of the operator's, which may manage keys and secrets. */
async function signInByLink(accountId = server.account.id): Promise<Session> {
  const { token } = await server.platform.dashboard.createSignInLink(accountId);
  return signIn({ link_token: token });
}

/** A request with the session's cookie, and its CSRF token unless told otherwise. */
function asSession(
  session: Session,
  method: string,
  path: string,
  options: { json?: unknown; csrfToken?: string | null } = {},
): Promise<Answer> {
  const csrf = options.csrfToken === undefined ? session.csrfToken : options.csrfToken;
  return send(server, {
    method,
    path,
    authorized: false,
    ...(options.json === undefined ? {} : { json: options.json }),
    headers: { cookie: session.cookie, ...(csrf === null ? {} : { "x-csrf-token": csrf }) },
  });
}

describe("signing in", () => {
  it("with an API key: an HttpOnly, SameSite=Strict session cookie for the whole origin, and a CSRF token", async () => {
    const session = await signIn({ api_key: server.key.key });
    const cookie = session.answer.headers.getSetCookie()[0] ?? "";
    expect(cookie).toMatch(/^verbatim_session=vb_session_[0-9A-Za-z]{40};/);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Strict");
    expect(cookie).toContain("Path=/");
    expect(cookie).not.toContain("Secure");
    expect((session.answer.body as Loose).data).toEqual({
      kind: "dashboard_session",
      id: expect.stringMatching(/^ses_[0-9A-Z]{26}$/),
      account_id: server.account.id,
      signed_in_with: "api_key",
      can_manage_credentials: false,
      csrf_token: expect.stringMatching(/^[\w-]{43}$/),
      expires_at: expect.any(String),
    });
    expect(session.answer.headers.get("x-ratelimit-remaining")).toMatch(/^\d+$/);
  });

  it("refuses an unknown key (401), both credentials or none (400)", async () => {
    const unknown = await send(server, {
      method: "POST",
      path: "/dashboard/api/session",
      json: { api_key: `vb_live_${"x".repeat(32)}` },
      authorized: false,
    });
    expectErrorEnvelope(unknown, 401, "unauthorized");
    for (const body of [{}, { api_key: server.key.key, link_token: "a".repeat(43) }]) {
      const answer = await send(server, {
        method: "POST",
        path: "/dashboard/api/session",
        json: body,
        authorized: false,
      });
      expectErrorEnvelope(answer, 400, "invalid_request");
    }
  });

  it("with a CLI link: once, within 15 minutes; a second use and an expired link are refused", async () => {
    const printed = (await runAdminCommand(server.platform, {
      name: "dashboard.link",
      accountId: server.account.id,
      baseUrl: "https://verbatim.example.com",
    })) as { link: string; expires_at: string };
    expect(printed.link).toMatch(/^https:\/\/verbatim\.example\.com\/dashboard\/sign-in#token=[\w-]{43}$/);
    const token = printed.link.split("#token=")[1];
    const session = await signIn({ link_token: token });
    expect((session.answer.body as Loose).data).toMatchObject({
      account_id: server.account.id,
      signed_in_with: "link",
      can_manage_credentials: true,
    });

    const again = await send(server, {
      method: "POST",
      path: "/dashboard/api/session",
      json: { link_token: token },
      authorized: false,
    });
    expectErrorEnvelope(again, 401, "unauthorized");

    const { token: late } = await server.platform.dashboard.createSignInLink(server.account.id);
    clockOffsetMs = signInLinkLifetimeMs + 1000;
    try {
      const expired = await send(server, {
        method: "POST",
        path: "/dashboard/api/session",
        json: { link_token: late },
        authorized: false,
      });
      expectErrorEnvelope(expired, 401, "unauthorized");
    } finally {
      clockOffsetMs = 0;
    }
  });
});

describe("a session", () => {
  let session: Session;
  beforeAll(async () => {
    session = await signIn({ api_key: server.key.key });
  });

  it("reads the v2 API and the dashboard's with the cookie alone, and finds its CSRF token again", async () => {
    const me = await asSession(session, "GET", "/api/v2/me", { csrfToken: null });
    expect(me.status, me.text).toBe(200);
    expect((me.body as Loose).data.user_id).toBe(server.account.id);
    const account = await asSession(session, "GET", "/dashboard/api/account", { csrfToken: null });
    expect((account.body as Loose).data).toMatchObject({
      kind: "dashboard_account",
      account_id: server.account.id,
      plan: "pro",
      credits: expect.any(Number),
      next_refill_at: expect.any(String),
      rate_limit: { limit: expect.any(Number), remaining: expect.any(Number) },
    });
    const again = await asSession(session, "GET", "/dashboard/api/session", { csrfToken: null });
    expect((again.body as Loose).data.csrf_token).toBe(session.csrfToken);
  });

  it("shares the account's request allowance with its API keys", async () => {
    const byKey = await send(server, { method: "GET", path: "/dashboard/api/account", authorized: false, headers: {} });
    expect(byKey.status).toBe(401);
    const first = await asSession(session, "GET", "/dashboard/api/keys", { csrfToken: null });
    const second = await send(server, { method: "POST", path: "/api/v2/transcripts/search", json: { query: "x" } });
    expect(second.headers.get("x-ratelimit-remaining")).toBe(
      String(Number(first.headers.get("x-ratelimit-remaining")) - 1),
    );
  });

  it("refuses a state change without its CSRF token, or with another, on the dashboard's API and on v2", async () => {
    const missing = await asSession(session, "POST", "/dashboard/api/keys", { json: {}, csrfToken: null });
    expectErrorEnvelope(missing, 400, "invalid_request");
    const forged = await asSession(session, "POST", "/dashboard/api/keys", { json: {}, csrfToken: "forged" });
    expectErrorEnvelope(forged, 400, "invalid_request");
    expectIssueAt(forged, "/headers/x-csrf-token");
    const onV2 = await asSession(session, "POST", "/api/v2/monitors", {
      json: { target: "@jawed" },
      csrfToken: null,
    });
    expectErrorEnvelope(onV2, 400, "invalid_request");
    expectIssueAt(onV2, "/headers/x-csrf-token");
    const keys = await asSession(session, "GET", "/dashboard/api/keys", { csrfToken: null });
    expect((keys.body as Loose).data.keys).toHaveLength(1);
  });

  it("is refused after signing out, and when it has expired", async () => {
    const short = await signIn({ api_key: server.key.key });
    const out = await asSession(short, "DELETE", "/dashboard/api/session");
    expect(out.status, out.text).toBe(204);
    expect(out.headers.getSetCookie()[0]).toMatch(/^verbatim_session=;.*Expires=Thu, 01 Jan 1970/);
    expectErrorEnvelope(await asSession(short, "GET", "/dashboard/api/account"), 401, "unauthorized");

    const expiring = await signIn({ api_key: server.key.key });
    clockOffsetMs = sessionLifetimeMs + 1000;
    try {
      expectErrorEnvelope(await asSession(expiring, "GET", "/api/v2/me"), 401, "unauthorized");
    } finally {
      clockOffsetMs = 0;
    }
  });

  it("is the only way to the dashboard's operations: an API key is refused", async () => {
    const answer = await send(server, { method: "GET", path: "/dashboard/api/keys" });
    expectErrorEnvelope(answer, 401, "unauthorized");
  });
});

describe("keys", () => {
  let session: Session;
  beforeAll(async () => {
    session = await signInByLink();
  });

  it("creates a key shown once, lists keys without secrets (and without sessions), records last use", async () => {
    const created = await asSession(session, "POST", "/dashboard/api/keys", { json: { requests_per_minute: 30 } });
    expect(created.status, created.text).toBe(200);
    const issued = (created.body as Loose).data;
    expect(issued.key).toMatch(/^vb_live_[0-9A-Za-z]{32}$/);
    expect(issued.api_key).toMatchObject({ kind: "api_key", requests_per_minute: 30, last_used_at: null });
    expect(issued.key.startsWith(issued.api_key.prefix.replace("…", ""))).toBe(true);

    const used = await send(server, {
      method: "GET",
      path: "/api/v2/me",
      authorized: false,
      headers: { authorization: `Bearer ${issued.key}` },
    });
    expect(used.status).toBe(200);

    const listed = (await asSession(session, "GET", "/dashboard/api/keys")).body as Loose;
    expect(listed.data.keys.map((key: Loose) => key.id)).toContain(issued.api_key.id);
    expect(JSON.stringify(listed)).not.toContain(issued.key);
    expect(JSON.stringify(listed)).not.toContain("vb_session_");
    expect(listed.data.keys.every((key: Loose) => key.prefix.startsWith("vb_live_"))).toBe(true);
    const mine = listed.data.keys.find((key: Loose) => key.id === issued.api_key.id);
    expect(mine.last_used_at).toEqual(expect.any(String));
  });

  it("revokes a key, after which the API answers 401; sets and clears a key's limit", async () => {
    const issued = ((await asSession(session, "POST", "/dashboard/api/keys", { json: {} })).body as Loose).data;
    const limited = await asSession(session, "PATCH", `/dashboard/api/keys/${issued.api_key.id}`, {
      json: { requests_per_minute: 5 },
    });
    expect((limited.body as Loose).data.requests_per_minute).toBe(5);
    const cleared = await asSession(session, "PATCH", `/dashboard/api/keys/${issued.api_key.id}`, {
      json: { requests_per_minute: null },
    });
    expect((cleared.body as Loose).data.requests_per_minute).toBeNull();

    const revoked = await asSession(session, "DELETE", `/dashboard/api/keys/${issued.api_key.id}`);
    expect((revoked.body as Loose).data.revoked_at).toEqual(expect.any(String));
    const refused = await send(server, {
      method: "GET",
      path: "/api/v2/me",
      authorized: false,
      headers: { authorization: `Bearer ${issued.key}` },
    });
    expectErrorEnvelope(refused, 401, "unauthorized");
  });

  it("rotates a key with a grace period: both work until it ends", async () => {
    const issued = ((await asSession(session, "POST", "/dashboard/api/keys", { json: {} })).body as Loose).data;
    const rotated = await asSession(session, "POST", `/dashboard/api/keys/${issued.api_key.id}/rotate`, {
      json: { grace_seconds: 3600 },
    });
    const body = (rotated.body as Loose).data;
    expect(body.kind).toBe("rotated_api_key");
    expect(body.key).not.toBe(issued.key);
    expect(Date.parse(body.revoked.revoked_at)).toBeGreaterThan(Date.now() + 3500_000);
    for (const key of [issued.key, body.key]) {
      const answer = await send(server, {
        method: "GET",
        path: "/api/v2/me",
        authorized: false,
        headers: { authorization: `Bearer ${key}` },
      });
      expect(answer.status).toBe(200);
    }
  });

  it("never reaches another account's key (404)", async () => {
    const other = await server.platform.accounts.create({ plan: "free", name: "other" });
    for (const [method, path, json] of [
      ["DELETE", `/dashboard/api/keys/${other.key.id}`, undefined],
      ["PATCH", `/dashboard/api/keys/${other.key.id}`, { requests_per_minute: 1 }],
      ["POST", `/dashboard/api/keys/${other.key.id}/rotate`, {}],
    ] as const) {
      expectErrorEnvelope(await asSession(session, method, path, { json }), 404, "not_found");
    }
    const stillWorks = await send(server, {
      method: "GET",
      path: "/api/v2/me",
      authorized: false,
      headers: { authorization: `Bearer ${other.key.key}` },
    });
    expect(stillWorks.status).toBe(200);
  });
});

describe("webhooks", () => {
  let session: Session;
  beforeAll(async () => {
    session = await signInByLink();
  });

  it("reveals the signing secret on request and rotates it", async () => {
    const revealed = ((await asSession(session, "GET", "/dashboard/api/webhooks/secret")).body as Loose).data;
    expect(revealed).toEqual({
      kind: "webhook_secret",
      secret: await server.platform.accounts.webhookSecret(server.account.id),
    });
    const rotated = ((await asSession(session, "POST", "/dashboard/api/webhooks/secret/rotate")).body as Loose).data;
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(revealed.secret);
    expect(await server.platform.accounts.webhookSecret(server.account.id)).toBe(rotated.secret);
  });

  it("lists the deliveries newest first with their attempts, pages them, and redelivers a finished one", async () => {
    const outbox = createWebhooks(server.platform.store, { logger: createLogger("silent") });
    const ids: string[] = [];
    for (const type of ["first", "second", "third"]) {
      ids.push(
        await outbox.enqueue({ accountId: server.account.id, url: "https://hooks.example.com/in", type, payload: {} }),
      );
    }
    const page = ((await asSession(session, "GET", "/dashboard/api/webhooks/deliveries?limit=2")).body as Loose).data;
    expect(page.deliveries.map((delivery: Loose) => delivery.event_type)).toEqual(["third", "second"]);
    expect(page.deliveries[0]).toMatchObject({ status: "pending", attempts: [], url: "https://hooks.example.com/in" });
    const rest = (
      (await asSession(session, "GET", `/dashboard/api/webhooks/deliveries?limit=2&before=${page.next_before}`))
        .body as Loose
    ).data;
    expect(rest.deliveries.map((delivery: Loose) => delivery.event_type)).toEqual(["first"]);
    expect(rest.next_before).toBeNull();

    const [firstId] = ids;
    await server.platform.store.query(
      sql`update webhook_deliveries set status = 'failed', next_attempt_at = null where id = ${firstId}`,
    );
    const redelivered = await asSession(session, "POST", `/dashboard/api/webhooks/deliveries/${firstId}/redeliver`);
    expect((redelivered.body as Loose).data).toMatchObject({
      id: firstId,
      status: "pending",
      next_attempt_at: expect.any(String),
    });

    const other = await server.platform.accounts.create({ plan: "free", name: "someone else" });
    const theirs = await outbox.enqueue({
      accountId: other.account.id,
      url: "https://hooks.example.com/theirs",
      type: "theirs",
      payload: {},
    });
    expectErrorEnvelope(
      await asSession(session, "POST", `/dashboard/api/webhooks/deliveries/${theirs}/redeliver`),
      404,
      "not_found",
    );
    const mine = ((await asSession(session, "GET", "/dashboard/api/webhooks/deliveries?limit=100")).body as Loose).data;
    expect(mine.deliveries.map((delivery: Loose) => delivery.id)).not.toContain(theirs);
  });
});

describe("the dashboard's pages", () => {
  it("serve index.html for every app path, with a same-origin CSP and no framing", async () => {
    for (const path of ["/dashboard", "/dashboard/keys", "/dashboard/sign-in"]) {
      const page = await send(server, { method: "GET", path, authorized: false });
      expect(page.status, path).toBe(200);
      expect(page.headers.get("content-type")).toMatch(/^text\/html/);
      expect(page.text).toContain('<div id="app">');
      expect(page.headers.get("content-security-policy")).toContain("default-src 'self'");
      expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
      expect(page.headers.get("x-frame-options")).toBe("DENY");
      expect(page.headers.get("cache-control")).toBe("no-cache");
    }
    const script = /src="(\/dashboard\/assets\/[^"]+\.js)"/.exec(
      (await send(server, { method: "GET", path: "/dashboard", authorized: false })).text,
    )?.[1];
    const asset = await send(server, { method: "GET", path: script ?? "/dashboard/assets/none.js", authorized: false });
    expect(asset.status).toBe(200);
    expect(asset.headers.get("cache-control")).toContain("immutable");
    const missing = await send(server, { method: "GET", path: "/dashboard/assets/missing.js", authorized: false });
    expect(missing.status).toBe(404);
  });
});

/** A new account of `plan` and its first key, signed in with nothing yet. */
async function newAccount(plan: "free" | "pro" = "pro") {
  return server.platform.accounts.create({ plan, name: `account ${plan}` });
}

/** The account's session rows, ended ones included. */
async function sessionRows(accountId: string): Promise<number> {
  const [row] = await server.platform.store.query<{ count: number | string }>(
    sql`select count(*) as count from api_keys where account_id = ${accountId} and kind = 'session'`,
  );
  return Number(row?.count);
}

/**
 * Someone holding a leaked key: signs in with it over and over, pushing against the session cap,
 * and tries to end every link session each new session lists, until the key stops working.
 */
function attackWithLeakedKey(apiKey: string) {
  const attack = {
    signIns: 0,
    endings: [] as { sessionId: string; answer: Answer }[],
    stopped: false,
    finished: Promise.resolve(),
  };
  // A test that fails before the key is revoked stops the loop, rather than leave it running against a closed server.
  onTestFinished(() => {
    attack.stopped = true;
    return attack.finished;
  });
  attack.finished = (async () => {
    while (!attack.stopped) {
      const opened = await send(server, {
        method: "POST",
        path: "/dashboard/api/session",
        json: { api_key: apiKey },
        authorized: false,
      });
      if (opened.status === 401) return;
      expect(opened.status, opened.text).toBe(200);
      attack.signIns++;
      const session: Session = {
        cookie: (opened.headers.getSetCookie()[0] ?? "").split(";")[0] ?? "",
        csrfToken: (opened.body as Loose).data.csrf_token,
        answer: opened,
      };
      const listed = await asSession(session, "GET", "/dashboard/api/sessions");
      if (listed.status === 401) return;
      expect(listed.status, listed.text).toBe(200);
      for (const each of (listed.body as Loose).data.sessions) {
        if (each.signed_in_with !== "link") continue;
        const answer = await asSession(session, "DELETE", `/dashboard/api/sessions/${each.id}`);
        attack.endings.push({ sessionId: each.id, answer });
      }
    }
  })();
  return attack;
}

const managingCalls = (keyId: string) =>
  [
    ["POST", "/dashboard/api/keys", {}],
    ["PATCH", `/dashboard/api/keys/${keyId}`, { requests_per_minute: 1 }],
    ["GET", "/dashboard/api/webhooks/secret", undefined],
    ["POST", "/dashboard/api/webhooks/secret/rotate", undefined],
    ["POST", `/dashboard/api/keys/${keyId}/rotate`, { grace_seconds: 60 }],
    ["DELETE", `/dashboard/api/keys/${keyId}`, undefined],
  ] as const;

describe("a session opened with an API key lasts no longer than the key", () => {
  it("ends when the key is revoked from another session: the cookie gets 401 on the dashboard and on v2", async () => {
    const { account, key } = await newAccount();
    const byKey = await signIn({ api_key: key.key });
    const owner = await signInByLink(account.id);
    const revoked = await asSession(owner, "DELETE", `/dashboard/api/keys/${key.id}`);
    expect(revoked.status, revoked.text).toBe(200);
    expectErrorEnvelope(await asSession(byKey, "GET", "/dashboard/api/account"), 401, "unauthorized");
    expectErrorEnvelope(await asSession(byKey, "POST", "/dashboard/api/keys", { json: {} }), 401, "unauthorized");
    expectErrorEnvelope(await asSession(byKey, "GET", "/api/v2/me"), 401, "unauthorized");
    expect((await asSession(owner, "GET", "/dashboard/api/account")).status).toBe(200);
  });

  it("ends when the operator revokes the key with the CLI", async () => {
    const { account, key } = await newAccount();
    const byKey = await signIn({ api_key: key.key });
    await runAdminCommand(server.platform, { name: "keys.revoke", keyId: key.id });
    expectErrorEnvelope(await asSession(byKey, "GET", "/dashboard/api/session"), 401, "unauthorized");
    expect(await sessionRows(account.id)).toBe(0);
  });

  it("ends at once when the key is rotated, though the key itself works through its grace period", async () => {
    const { account, key } = await newAccount();
    const byKey = await signIn({ api_key: key.key });
    const owner = await signInByLink(account.id);
    const rotated = await asSession(owner, "POST", `/dashboard/api/keys/${key.id}/rotate`, {
      json: { grace_seconds: 3600 },
    });
    expect(rotated.status, rotated.text).toBe(200);
    expectErrorEnvelope(await asSession(byKey, "GET", "/dashboard/api/account"), 401, "unauthorized");
    const stillKey = await send(server, {
      method: "GET",
      path: "/api/v2/me",
      authorized: false,
      headers: { authorization: `Bearer ${key.key}` },
    });
    expect(stillKey.status, stillKey.text).toBe(200);
  });

  it("cannot be opened with a key inside a rotation's grace period (401), while its replacement can", async () => {
    const { key } = await newAccount();
    const { issued } = await server.platform.accounts.keys.rotate(key.id, 3600);
    const refused = await send(server, {
      method: "POST",
      path: "/dashboard/api/session",
      json: { api_key: key.key },
      authorized: false,
    });
    expectErrorEnvelope(refused, 401, "unauthorized");
    expect((refused.body as Loose).error.message).toContain("rotated");
    await signIn({ api_key: issued.key });
  });

  it("never outlives a revocation that races its sign-in", async () => {
    const { account, key } = await newAccount();
    const owner = await signInByLink(account.id);
    const attempts = Array.from({ length: 8 }, () =>
      send(server, { method: "POST", path: "/dashboard/api/session", json: { api_key: key.key }, authorized: false }),
    );
    const revocation = asSession(owner, "DELETE", `/dashboard/api/keys/${key.id}`);
    const [answers, revoked] = await Promise.all([Promise.all(attempts), revocation]);
    expect(revoked.status, revoked.text).toBe(200);
    for (const answer of answers.filter((each) => each.status === 200)) {
      const cookie = (answer.headers.getSetCookie()[0] ?? "").split(";")[0] ?? "";
      const after = await send(server, {
        method: "GET",
        path: "/dashboard/api/account",
        authorized: false,
        headers: { cookie },
      });
      expectErrorEnvelope(after, 401, "unauthorized");
    }
  });

  it("cannot manage keys or the webhook secret (403 unauthorized), while a link session can", async () => {
    const { account, key } = await newAccount();
    const other = await server.platform.accounts.keys.create(account.id);
    const byKey = await signIn({ api_key: key.key });
    for (const [method, path, json] of managingCalls(other.id)) {
      const answer = await asSession(byKey, method, path, { json });
      expectErrorEnvelope(answer, 403, "unauthorized");
      expect((answer.body as Loose).error.message).toContain("sign-in link");
    }
    expect((await server.platform.accounts.keys.all(account.id)).map((view) => view.state)).toEqual([
      "active",
      "active",
    ]);
    const listed = await asSession(byKey, "GET", "/dashboard/api/keys");
    expect(listed.status, listed.text).toBe(200);

    const owner = await signInByLink(account.id);
    for (const [method, path, json] of managingCalls(other.id)) {
      const answer = await asSession(owner, method, path, { json });
      expect(answer.status, `${method} ${path}: ${answer.text}`).toBe(200);
    }
  });
});

describe("the account's sessions", () => {
  it("are listed with how each was opened and which key opened it, and any of them can be ended", async () => {
    const { account, key } = await newAccount();
    const byKey = await signIn({ api_key: key.key });
    const owner = await signInByLink(account.id);
    const listed = await asSession(owner, "GET", "/dashboard/api/sessions");
    expect(listed.status, listed.text).toBe(200);
    const ownerId = (owner.answer.body as Loose).data.id;
    const byKeyId = (byKey.answer.body as Loose).data.id;
    expect((listed.body as Loose).data).toEqual({
      kind: "dashboard_session_list",
      sessions: [
        expect.objectContaining({ id: ownerId, signed_in_with: "link", api_key: null, current: true }),
        expect.objectContaining({
          id: byKeyId,
          signed_in_with: "api_key",
          api_key: { id: key.id, prefix: key.prefix },
          current: false,
        }),
      ],
    });

    const ended = await asSession(owner, "DELETE", `/dashboard/api/sessions/${byKeyId}`);
    expect(ended.status, ended.text).toBe(204);
    expectErrorEnvelope(await asSession(byKey, "GET", "/dashboard/api/account"), 401, "unauthorized");
    expectErrorEnvelope(await asSession(owner, "DELETE", `/dashboard/api/sessions/${byKeyId}`), 404, "not_found");
    const after = ((await asSession(owner, "GET", "/dashboard/api/sessions")).body as Loose).data.sessions;
    expect(after.map((session: Loose) => session.id)).toEqual([ownerId]);
  });

  it("end only sessions opened with a key when asked by one (403 unauthorized), any when asked by a link session", async () => {
    const { account, key } = await newAccount();
    const owner = await signInByLink(account.id);
    const byKey = await signIn({ api_key: key.key });
    const otherByKey = await signIn({ api_key: key.key });
    const ownerId = (owner.answer.body as Loose).data.id;
    const otherId = (otherByKey.answer.body as Loose).data.id;

    const refused = await asSession(byKey, "DELETE", `/dashboard/api/sessions/${ownerId}`);
    expectErrorEnvelope(refused, 403, "unauthorized");
    expect((refused.body as Loose).error.message).toContain("sign-in link");
    expect((await asSession(owner, "GET", "/dashboard/api/account")).status).toBe(200);

    const seenByKey = ((await asSession(byKey, "GET", "/dashboard/api/sessions")).body as Loose).data.sessions;
    expect(seenByKey.map((session: Loose) => [session.signed_in_with, session.can_end])).toEqual([
      ["api_key", true],
      ["api_key", true],
      ["link", false],
    ]);

    const ended = await asSession(byKey, "DELETE", `/dashboard/api/sessions/${otherId}`);
    expect(ended.status, ended.text).toBe(204);
    expectErrorEnvelope(await asSession(otherByKey, "GET", "/dashboard/api/account"), 401, "unauthorized");

    const seenByOwner = ((await asSession(owner, "GET", "/dashboard/api/sessions")).body as Loose).data.sessions;
    expect(seenByOwner.map((session: Loose) => session.can_end)).toEqual([true, true]);
  });

  it("never lose a link session to key sign-ins: each way of signing in keeps its own 20 newest", async () => {
    const { account, key } = await newAccount();
    const owner = await signInByLink(account.id);
    const byKey: Session[] = [];
    for (let index = 0; index < 25; index++) byKey.push(await signIn({ api_key: key.key }));
    expect(await sessionRows(account.id)).toBe(21);
    const stillOpen = await asSession(owner, "GET", "/dashboard/api/account");
    expect(stillOpen.status, stillOpen.text).toBe(200);
    expectErrorEnvelope(await asSession(byKey[4] as Session, "GET", "/dashboard/api/account"), 401, "unauthorized");
    expect((await asSession(byKey[5] as Session, "GET", "/dashboard/api/account")).status).toBe(200);

    const byLink: Session[] = [];
    for (let index = 0; index < 20; index++) byLink.push(await signInByLink(account.id));
    expect(await sessionRows(account.id)).toBe(40);
    expectErrorEnvelope(await asSession(owner, "GET", "/dashboard/api/account"), 401, "unauthorized");
    expect((await asSession(byKey[5] as Session, "GET", "/dashboard/api/account")).status).toBe(200);
    const listed = ((await asSession(byLink[0] as Session, "GET", "/dashboard/api/sessions")).body as Loose).data;
    expect(listed.sessions).toHaveLength(40);
  });

  it("let the owner revoke a leaked key while its holder ends every link session it lists and signs in again and again", async () => {
    const { account, key } = await newAccount();
    const attack = attackWithLeakedKey(key.key);
    const owner = await signInByLink(account.id);
    const ownerId = (owner.answer.body as Loose).data.id;
    const signInsBefore = attack.signIns;
    await eventually(
      () => attack.signIns > signInsBefore + 20 && attack.endings.some((ending) => ending.sessionId === ownerId),
      50_000,
    );
    const triedBeforeRevoking = [...attack.endings];

    const revoked = await asSession(owner, "DELETE", `/dashboard/api/keys/${key.id}`);
    expect(revoked.status, revoked.text).toBe(200);
    await attack.finished;

    for (const ending of triedBeforeRevoking) expectErrorEnvelope(ending.answer, 403, "unauthorized");
    for (const ending of attack.endings.slice(triedBeforeRevoking.length)) {
      expectErrorEnvelope(ending.answer, ending.answer.status === 403 ? 403 : 401, "unauthorized");
    }
    const refused = await send(server, {
      method: "GET",
      path: "/api/v2/me",
      authorized: false,
      headers: { authorization: `Bearer ${key.key}` },
    });
    expectErrorEnvelope(refused, 401, "unauthorized");
    const left = ((await asSession(owner, "GET", "/dashboard/api/sessions")).body as Loose).data.sessions;
    expect(left.map((session: Loose) => session.id)).toEqual([ownerId]);
  });

  it("never reach another account's session (404), and need the CSRF token to end one (400)", async () => {
    const mine = await newAccount();
    const theirs = await newAccount();
    const owner = await signInByLink(mine.account.id);
    const stranger = await signIn({ api_key: theirs.key.key });
    const strangerId = (stranger.answer.body as Loose).data.id;
    expectErrorEnvelope(await asSession(owner, "DELETE", `/dashboard/api/sessions/${strangerId}`), 404, "not_found");
    expectErrorEnvelope(
      await asSession(owner, "DELETE", `/dashboard/api/sessions/${strangerId}`, { csrfToken: null }),
      400,
      "invalid_request",
    );
    expect((await asSession(stranger, "GET", "/dashboard/api/account")).status).toBe(200);
  });

  it("are listed and ended by the operator's CLI", async () => {
    const { account, key } = await newAccount();
    const byKey = await signIn({ api_key: key.key });
    const listed = (await runAdminCommand(server.platform, {
      name: "dashboard.sessions",
      accountId: account.id,
    })) as Loose[];
    expect(listed).toEqual([
      expect.objectContaining({
        id: (byKey.answer.body as Loose).data.id,
        signed_in_with: "api_key",
        api_key_id: key.id,
      }),
    ]);
    await runAdminCommand(server.platform, { name: "dashboard.end-session", sessionId: listed[0].id });
    expectErrorEnvelope(await asSession(byKey, "GET", "/dashboard/api/account"), 401, "unauthorized");
    await expect(
      runAdminCommand(server.platform, { name: "dashboard.end-session", sessionId: listed[0].id }),
    ).rejects.toMatchObject({ code: "not_found" });
  });

  it("are refused before anything is written when the allowance is spent, and a refused link works again", async () => {
    const { account, key } = await newAccount("free");
    const { token } = await server.platform.dashboard.createSignInLink(account.id);
    for (let index = 0; index < 10; index++) {
      const answer = await send(server, {
        method: "GET",
        path: "/api/v2/me",
        authorized: false,
        headers: { authorization: `Bearer ${key.key}` },
      });
      expect(answer.status).toBe(200);
      await send(server, {
        method: "POST",
        path: "/api/v2/transcripts/search",
        authorized: false,
        headers: { authorization: `Bearer ${key.key}` },
        json: { query: "x" },
      });
    }
    for (let index = 0; index < 5; index++) {
      const byKey = await send(server, {
        method: "POST",
        path: "/dashboard/api/session",
        json: { api_key: key.key },
        authorized: false,
      });
      expectErrorEnvelope(byKey, 429, "rate_limited");
      expect(byKey.headers.get("retry-after")).toMatch(/^\d+$/);
      const byLink = await send(server, {
        method: "POST",
        path: "/dashboard/api/session",
        json: { link_token: token },
        authorized: false,
      });
      expectErrorEnvelope(byLink, 429, "rate_limited");
    }
    expect(await sessionRows(account.id)).toBe(0);
    clockOffsetMs = 61_000;
    try {
      const session = await signIn({ link_token: token });
      expect((session.answer.body as Loose).data.signed_in_with).toBe("link");
    } finally {
      clockOffsetMs = 0;
    }
  });

  it("keep at most 20 rows opened with keys: a new one ends the oldest, and expired ones are deleted", async () => {
    const { account, key } = await newAccount();
    const first = await signIn({ api_key: key.key });
    for (let index = 0; index < 20; index++) await signIn({ api_key: key.key });
    expect(await sessionRows(account.id)).toBe(20);
    expectErrorEnvelope(await asSession(first, "GET", "/dashboard/api/account"), 401, "unauthorized");
    clockOffsetMs = sessionLifetimeMs + 1000;
    try {
      const latest = await signIn({ api_key: key.key });
      expect(await sessionRows(account.id)).toBe(1);
      const listed = ((await asSession(latest, "GET", "/dashboard/api/sessions")).body as Loose).data.sessions;
      expect(listed).toHaveLength(1);
    } finally {
      clockOffsetMs = 0;
    }
  });
});

describe("an account's keys", () => {
  it("are capped by the plan: a Free account's sixth active key is refused (400), also by the CLI", async () => {
    const { account } = await newAccount("free");
    for (let index = 0; index < 4; index++) await server.platform.accounts.keys.create(account.id);
    const owner = await signInByLink(account.id);
    const refused = await asSession(owner, "POST", "/dashboard/api/keys", { json: {} });
    expectErrorEnvelope(refused, 400, "invalid_request");
    expect((refused.body as Loose).error.message).toContain("5 active keys");
    await expect(
      runAdminCommand(server.platform, { name: "keys.create", accountId: account.id }),
    ).rejects.toMatchObject({ code: "invalid_request" });

    const [newest] = await server.platform.accounts.keys.all(account.id);
    const rotated = await asSession(owner, "POST", `/dashboard/api/keys/${newest?.id}/rotate`, {
      json: { grace_seconds: 60 },
    });
    expect(rotated.status, rotated.text).toBe(200);
    await asSession(owner, "DELETE", `/dashboard/api/keys/${newest?.id}`);
    expectErrorEnvelope(await asSession(owner, "POST", "/dashboard/api/keys", { json: {} }), 400, "invalid_request");
    const [oldest] = (await server.platform.accounts.keys.all(account.id)).slice(-1);
    await asSession(owner, "DELETE", `/dashboard/api/keys/${oldest?.id}`);
    const again = await asSession(owner, "POST", "/dashboard/api/keys", { json: {} });
    expect(again.status, again.text).toBe(200);
  });

  it("are paged newest first, 100 at most per page, revoked ones included", async () => {
    const { account, key } = await newAccount();
    const made = [key.id];
    for (let index = 0; index < 229; index++) {
      const issued = await server.platform.accounts.keys.create(account.id);
      await server.platform.accounts.keys.revoke(issued.id);
      made.push(issued.id);
    }
    const owner = await signInByLink(account.id);
    const seen: string[] = [];
    const sizes: number[] = [];
    let path = "/dashboard/api/keys";
    for (;;) {
      const page = await asSession(owner, "GET", path);
      expect(page.status, page.text).toBe(200);
      const data = (page.body as Loose).data;
      sizes.push(data.keys.length);
      seen.push(...data.keys.map((each: Loose) => each.id));
      if (data.next_before === null) break;
      path = `/dashboard/api/keys?before=${data.next_before}`;
    }
    expect(sizes).toEqual([100, 100, 30]);
    expect(seen).toEqual([...made].reverse());
    const small = ((await asSession(owner, "GET", "/dashboard/api/keys?limit=2")).body as Loose).data;
    expect(small.keys).toHaveLength(2);
    expect(small.next_before).toBe(small.keys[1].id);
    expectErrorEnvelope(await asSession(owner, "GET", "/dashboard/api/keys?limit=101"), 400, "invalid_request");
    for (const loose of ["1e1", "0xa", "%2010", "Infinity"]) {
      const answer = await asSession(owner, "GET", `/dashboard/api/keys?limit=${loose}`);
      expectErrorEnvelope(answer, 400, "invalid_request");
      expectIssueAt(answer, "/query/limit");
    }
    expectErrorEnvelope(await asSession(owner, "GET", "/dashboard/api/keys?before=nonsense"), 400, "invalid_request");
  });
});
