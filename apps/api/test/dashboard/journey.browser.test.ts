import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { eventually } from "@verbatim/testkit/eventually";
import { recordedVideos } from "@verbatim/testkit/fake-youtube";
import { channelUrl } from "@verbatim/testkit/recorded-channel";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MonitorHarness, startMonitorHarness } from "../monitors/harness.ts";

const chromiumPath = "/usr/bin/chromium";
const dashboardIndex = fileURLToPath(new URL("../../../dashboard/dist/index.html", import.meta.url));
const artifacts = fileURLToPath(new URL("../../test-artifacts/dashboard/", import.meta.url));
const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/**
 * Why the journey cannot run on this machine, checked before any server starts: outside CI only.
 * CI installs Chromium and builds the app (.ci/run), so there a missing one fails the journey.
 */
const missing = process.env.CI
  ? undefined
  : !existsSync(chromiumPath)
    ? `${chromiumPath} is not installed (.ci/run installs it)`
    : !existsSync(dashboardIndex)
      ? "apps/dashboard/dist is not built: run pnpm install, whose postinstall builds it"
      : undefined;

let h: MonitorHarness;
let baseUrl: string;
let userDataDir: string;
let context: BrowserContext;
let page: Page;
const requested: string[] = [];
/** Links the journey followed out of the dashboard on purpose (answered by a route, never the network). */
const followed: string[] = [];
const errors: string[] = [];
/** The questions the app asked before a destructive action (each accepted). */
const confirmed: string[] = [];
/** The serious and critical accessibility violations axe found, per page. */
const violations: Record<string, string[]> = {};

function skipWithoutBrowser(skip: (condition: boolean, note?: string) => void): void {
  skip(missing !== undefined, missing);
}

beforeAll(async () => {
  if (missing) return;
  if (!existsSync(chromiumPath)) throw new Error(`${chromiumPath} is missing: .ci/run installs it`);
  if (!existsSync(dashboardIndex))
    throw new Error(`${dashboardIndex} is missing: the root postinstall did not build it`);
  h = await startMonitorHarness({ credits: 100 });
  baseUrl = h.server.baseUrl;
  // A server without the dashboard fails the journey: there is nothing left to skip it for.
  const served = await fetch(`${baseUrl}/dashboard/`);
  const session = await fetch(`${baseUrl}/dashboard/api/session`);
  if (!served.ok || session.status === 404) {
    throw new Error(
      `the server serves no dashboard: GET /dashboard/ ${served.status}, GET /dashboard/api/session ${session.status}`,
    );
  }
  await mkdir(artifacts, { recursive: true });
  userDataDir = await mkdtemp(path.join(tmpdir(), "verbatim-dashboard-chromium-"));
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: chromiumPath,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
    viewport: { width: 1280, height: 900 },
  });
  context.on("request", (request) => requested.push(request.url()));
  page = context.pages()[0] ?? (await context.newPage());
  page.on("dialog", (dialog) => {
    confirmed.push(dialog.message());
    return dialog.accept();
  });
  page.on("console", (message) => {
    // Chromium logs every 4xx answer; the app shows those itself, so only other errors count.
    if (message.type() === "error" && !message.text().startsWith("Failed to load resource"))
      errors.push(`console: ${message.text()}`);
  });
  page.on("pageerror", (error) => errors.push(`pageerror: ${error.message}`));
}, 180_000);

afterAll(async () => {
  await context?.close();
  if (userDataDir) await rm(userDataDir, { recursive: true, force: true });
  await h?.close();
});

/** Saves a screenshot of the whole page as test-artifacts/dashboard/<name>.png. */
async function screenshot(name: string): Promise<void> {
  await page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: true });
}

/** Runs axe-core on the page as it is and keeps its serious and critical violations. */
async function audit(name: string): Promise<void> {
  if ((await page.evaluate<boolean>("typeof window.axe === 'undefined'")) === true) {
    // Evaluated, not added as a script tag: a Content-Security-Policy on the page would refuse an inline script.
    await page.evaluate(axeSource);
  }
  const found = await page.evaluate<{ id: string; impact: string; help: string; targets: string[] }[]>(`
    window.axe.run(document, { resultTypes: ["violations"] }).then((result) =>
      result.violations
        .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
        .map((violation) => ({
          id: violation.id,
          impact: violation.impact,
          help: violation.help,
          targets: violation.nodes.map((node) => node.target.join(" ")),
        })),
    )`);
  violations[name] = found.map((v) => `${v.impact} ${v.id}: ${v.help} (${v.targets.join(", ")})`);
}

async function goTo(link: string, heading: string): Promise<void> {
  await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: link, exact: true }).click();
  await page.getByRole("heading", { level: 1, name: heading }).waitFor();
}

async function signOut(): Promise<void> {
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.getByRole("heading", { level: 1, name: "Sign in to Verbatim" }).waitFor();
}

function bearer(key: string) {
  return { Authorization: `Bearer ${key}`, "Content-Type": "application/json" };
}

/** Opens a dashboard session outside the browser, with an API key: its cookie and id. */
async function signInElsewhere(apiKey: string): Promise<{ cookie: string; id: string }> {
  const answer = await fetch(`${baseUrl}/dashboard/api/session`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ api_key: apiKey }),
  });
  expect(answer.status, await answer.clone().text()).toBe(200);
  const { data } = (await answer.json()) as { data: { id: string } };
  return { cookie: (answer.headers.getSetCookie()[0] ?? "").split(";")[0] ?? "", id: data.id };
}

/** The notice a session opened with an API key shows where keys and the webhook secret would be managed. */
function credentialsNotice() {
  return page.getByRole("status").filter({ hasText: "pnpm verbatim dashboard link" });
}

describe("the dashboard in Chromium, against a live server", () => {
  let createdKey = "";
  let createdPrefix = "";
  let successorKey = "";
  let successorPrefix = "";
  /** The CLI link the journey signs in with; it works once. */
  let linkToken = "";
  /** Two words of the transcript the new key fetched, searched for in the library. */
  let phrase = "";

  it("sends a visitor without a session to sign in, and signs in with an API key by keyboard", async ({ skip }) => {
    skipWithoutBrowser(skip);
    await page.goto(`${baseUrl}/dashboard/`);
    await page.getByRole("heading", { level: 1, name: "Sign in to Verbatim" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/dashboard/sign-in");
    await audit("sign-in");
    await screenshot("sign-in");
    await page.getByLabel("API key").focus();
    await page.keyboard.type(h.server.key.key);
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { level: 1, name: "Overview" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/dashboard/");
  });

  it("shows the plan, balance, next refill and rate limit on the overview", async ({ skip }) => {
    skipWithoutBrowser(skip);
    const stats = page.locator("dl.stats");
    await stats.getByText("100 credits").waitFor();
    expect(await stats.getByText("pro", { exact: true }).count()).toBe(1);
    expect(await stats.getByText(/requests left this minute/).count()).toBe(1);
    expect(await stats.locator("dt").allTextContents()).toEqual([
      "Plan",
      "Balance",
      "Next monthly refill",
      "Rate limit now",
    ]);
    await audit("overview");
    await screenshot("overview");
  });

  it("keeps the session across a reload, with the CSRF token read back from GET /session", async ({ skip }) => {
    skipWithoutBrowser(skip);
    await page.reload();
    await page.getByRole("heading", { level: 1, name: "Overview" }).waitFor();
    const refused = await page.evaluate<number>(
      `fetch("/dashboard/api/keys", { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" }).then((r) => r.status)`,
    );
    expect(refused, "a state change without the CSRF token").toBeGreaterThanOrEqual(400);
    expect(refused).toBeLessThan(500);
  });

  it("shows keys and the webhook secret read-only to a session opened with a key, with one notice why", async ({
    skip,
  }) => {
    skipWithoutBrowser(skip);
    await goTo("Keys", "API keys");
    await page
      .getByRole("row")
      .filter({ hasText: h.server.key.prefix })
      .getByText(/^Active$/)
      .waitFor();
    expect(await credentialsNotice().count()).toBe(1);
    expect(await credentialsNotice().textContent()).toContain(`pnpm verbatim dashboard link ${h.server.account.id}`);
    for (const control of ["Create key", "Set limit", `Rotate key ${h.server.key.prefix}`, /^Revoke key /]) {
      expect(await page.getByRole("button", { name: control }).count(), `no ${control} button`).toBe(0);
    }
    await audit("keys-read-only");
    await screenshot("keys-read-only");
    await goTo("Webhooks", "Webhooks");
    expect(await credentialsNotice().count()).toBe(1);
    for (const control of ["Reveal secret", "Rotate secret"]) {
      expect(await page.getByRole("button", { name: control }).count(), `no ${control} button`).toBe(0);
    }
  });

  it("shows the notice, and stays signed in, when the API refuses a key session's credential change (403)", async ({
    skip,
  }) => {
    skipWithoutBrowser(skip);
    // The page is told the session may manage credentials, so the create form shows and the API decides.
    const sessionUrl = `${baseUrl}/dashboard/api/session`;
    await page.route(sessionUrl, async (route) => {
      const answer = await route.fetch();
      const body = (await answer.json()) as { data: { can_manage_credentials: boolean } };
      body.data.can_manage_credentials = true;
      await route.fulfill({ response: answer, json: body });
    });
    try {
      await page.reload();
      await goTo("Keys", "API keys");
      expect(await credentialsNotice().count()).toBe(0);
      const [refused] = await Promise.all([
        page.waitForResponse((response) => response.request().method() === "POST"),
        page.getByRole("button", { name: "Create key" }).click(),
      ]);
      expect(refused.status()).toBe(403);
      await credentialsNotice().waitFor();
      expect(await page.getByRole("button", { name: "Create key" }).count()).toBe(0);
      expect(new URL(page.url()).pathname).toBe("/dashboard/keys");
      await goTo("Webhooks", "Webhooks");
      expect(await credentialsNotice().count(), "the other pages know too").toBe(1);
    } finally {
      await page.unroute(sessionUrl);
    }
  });

  it("signs out, then signs in with a CLI link, a session that may manage keys", async ({ skip }) => {
    skipWithoutBrowser(skip);
    await signOut();
    linkToken = (await h.server.platform.dashboard.createSignInLink(h.server.account.id)).token;
    await page.goto(`${baseUrl}/dashboard/sign-in#token=${linkToken}`);
    await page.getByRole("heading", { level: 1, name: "Overview" }).waitFor();
    expect(page.url(), "the token is gone from the address").toBe(`${baseUrl}/dashboard/`);
  });

  it("creates a key, shows it once with a copy button, and the key works with the API", async ({ skip }) => {
    skipWithoutBrowser(skip);
    await goTo("Keys", "API keys");
    expect(await credentialsNotice().count()).toBe(0);
    await page.getByLabel("Requests per minute (optional)").fill("30");
    await page.getByRole("button", { name: "Create key" }).click();
    const secret = page.getByLabel(/^Key vb_/);
    await secret.waitFor();
    createdKey = await secret.inputValue();
    createdPrefix = (await page.getByText(/^Key vb_/).textContent())?.replace(/^Key /, "") ?? "";
    expect(createdKey).toMatch(/^vb_/);
    expect(createdKey.startsWith(createdPrefix.replace("…", ""))).toBe(true);
    expect(await page.getByRole("button", { name: "Copy" }).isVisible()).toBe(true);
    await audit("keys");
    await screenshot("keys-created");

    const used = await fetch(`${baseUrl}/api/v2/transcripts/video`, {
      method: "POST",
      headers: bearer(createdKey),
      body: JSON.stringify({ video: recordedVideos.captioned }),
    });
    expect(used.status, await used.clone().text()).toBe(200);
    const transcript = ((await used.json()) as { data: { segments: { text: string }[] } }).data;
    // Two neighbouring words from the middle of the transcript: a phrase to search the library for.
    for (const segment of transcript.segments.slice(Math.floor(transcript.segments.length / 2))) {
      const words = segment.text.split(/\s+/);
      const at = words.findIndex((word, i) => /^[a-z]{3,}$/i.test(word) && /^[a-z]{3,}$/i.test(words[i + 1] ?? ""));
      if (at >= 0) {
        phrase = `${words[at]} ${words[at + 1]}`;
        break;
      }
    }
    expect(phrase).not.toBe("");

    await page.getByRole("button", { name: "I have stored it" }).click();
    expect(await page.getByLabel(/^Key vb_/).count(), "the key is shown only once").toBe(0);
    await page.reload();
    await page.getByRole("heading", { level: 1, name: "API keys" }).waitFor();
    const row = page.getByRole("row").filter({ hasText: createdPrefix });
    await row.waitFor();
    expect(await row.getByText("Never").count(), "the key's last use is listed").toBe(0);
    expect(await page.getByText(createdKey).count(), "the secret is never shown again").toBe(0);
  });

  it("sets a key's limit and rotates a key with a grace period", async ({ skip }) => {
    skipWithoutBrowser(skip);
    const limit = page.getByLabel(`Requests per minute for key ${createdPrefix}`);
    await limit.fill("20");
    await Promise.all([
      page.waitForResponse((response) => response.request().method() === "PATCH"),
      page.getByRole("row").filter({ hasText: createdPrefix }).getByRole("button", { name: "Set limit" }).click(),
    ]);
    await page.reload();
    await page.getByLabel(`Requests per minute for key ${createdPrefix}`).waitFor();
    expect(await page.getByLabel(`Requests per minute for key ${createdPrefix}`).inputValue()).toBe("20");
    const ownPrefix = h.server.key.prefix;
    await page.getByLabel(`Grace period for key ${ownPrefix}`).selectOption({ label: "1 hour" });
    await page.getByRole("button", { name: `Rotate key ${ownPrefix}` }).click();
    await page.getByText(`Key ${ownPrefix} rotated; this is its successor.`).waitFor();
    successorKey = await page.getByLabel(/^Key vb_/).inputValue();
    successorPrefix = (await page.locator("label", { hasText: /^Key vb_/ }).textContent())?.replace(/^Key /, "") ?? "";
    const withSuccessor = await fetch(`${baseUrl}/api/v2/me`, { headers: bearer(successorKey) });
    const withOld = await fetch(`${baseUrl}/api/v2/me`, { headers: bearer(h.server.key.key) });
    expect([withSuccessor.status, withOld.status], "both work during the grace period").toEqual([200, 200]);
    await screenshot("keys-rotated");
  });

  it("revokes the key, after which the API answers 401", async ({ skip }) => {
    skipWithoutBrowser(skip);
    await page.getByRole("button", { name: `Revoke key ${createdPrefix}` }).click();
    await page
      .getByRole("row")
      .filter({ hasText: createdPrefix })
      .getByText(/^Revoked /)
      .waitFor();
    const refused = await fetch(`${baseUrl}/api/v2/me`, { headers: bearer(createdKey) });
    expect(refused.status).toBe(401);
    await screenshot("keys-revoked");
  });

  it("pages through the keys, and shows the plan's cap as an error when one more is created", async ({ skip }) => {
    skipWithoutBrowser(skip);
    // The account holds one active key, the successor: 24 more reach the Pro plan's 25, and 27 keys in all.
    for (let i = 0; i < 24; i++) await h.server.platform.accounts.keys.create(h.server.account.id);
    await page.reload();
    await page.getByRole("heading", { level: 1, name: "API keys" }).waitFor();
    const rows = page.getByRole("table").locator("tbody tr");
    await page.getByRole("button", { name: "Older keys" }).waitFor();
    expect(await rows.count()).toBe(20);
    expect(await page.getByRole("button", { name: "Newer keys" }).count()).toBe(0);
    await page.getByRole("button", { name: "Older keys" }).click();
    await page.getByRole("rowheader", { name: h.server.key.prefix }).waitFor();
    expect(await rows.count()).toBe(7);
    expect(await page.getByRole("button", { name: "Older keys" }).count(), "the oldest page is the last").toBe(0);
    await page.getByRole("button", { name: "Newer keys" }).click();
    await page.getByRole("button", { name: "Older keys" }).waitFor();
    expect(await rows.count()).toBe(20);

    await page.getByRole("button", { name: "Create key" }).click();
    const alert = page.getByRole("alert").filter({ hasText: "25 active keys" });
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/the most its plan allows.*Code invalid_request · HTTP 400/);
    expect(await page.getByRole("heading", { level: 1, name: "API keys" }).count(), "still signed in").toBe(1);
    await screenshot("keys-cap");
  });

  it("lists the open sessions, ends another one, and that session's cookie is refused", async ({ skip }) => {
    skipWithoutBrowser(skip);
    const other = await signInElsewhere(successorKey);
    await goTo("Sessions", "Sessions");
    const rows = page.getByRole("table").locator("tbody tr");
    const current = rows.filter({ hasText: "this session" });
    const elsewhere = rows.filter({ hasText: other.id });
    await elsewhere.waitFor();
    expect(await rows.count(), "this session and the other").toBe(2);
    expect(await current.getByRole("cell").allTextContents()).toEqual([
      "Sign-in link",
      expect.stringMatching(/ UTC$/),
      expect.any(String),
      expect.stringMatching(/ UTC$/),
      "End",
    ]);
    expect(await elsewhere.getByRole("cell").first().textContent()).toBe(`API key ${successorPrefix}`);
    expect(await elsewhere.getByRole("cell").nth(2).textContent(), "not used since it opened").toBe(
      "Not since sign-in",
    );
    await audit("sessions");
    await screenshot("sessions");

    await page.getByRole("button", { name: `End session ${other.id}` }).click();
    await elsewhere.waitFor({ state: "detached" });
    expect(confirmed.at(-1)).toBe(`End session ${other.id}? It is refused from its next request on.`);
    expect(await rows.count()).toBe(1);
    const refused = await fetch(`${baseUrl}/dashboard/api/session`, { headers: { cookie: other.cookie } });
    expect(refused.status, await refused.clone().text()).toBe(401);
    const stillOpen = await page.evaluate<number>(`fetch("/dashboard/api/session").then((r) => r.status)`);
    expect(stillOpen, "this session goes on").toBe(200);
  });

  it("shows the transcript's charge in usage, per day and per operation", async ({ skip }) => {
    skipWithoutBrowser(skip);
    await goTo("Usage", "Usage");
    await expect.poll(() => page.getByTestId("credits-spent").textContent()).toBe("1");
    const perOperation = page.getByRole("table").filter({ hasText: "Operation" });
    const row = perOperation.getByRole("row").filter({ hasText: "/transcripts/video" });
    expect(await row.getByRole("cell").first().textContent()).toBe("1");
    expect(await page.getByRole("img", { name: /Bar chart of credits spent per day/ }).count()).toBe(1);
    await page.getByText("Every day as a table").click();
    const today = new Date().toISOString().slice(0, 10);
    const day = page.getByRole("row").filter({ has: page.getByRole("rowheader", { name: today }) });
    expect(await day.getByRole("cell").first().textContent()).toBe("1");
    await audit("usage");
    await screenshot("usage");
  });

  it("creates a monitor, pauses and resumes it, and redelivers an event", async ({ skip }) => {
    skipWithoutBrowser(skip);
    await goTo("Monitors", "Monitors");
    await page.getByLabel("Channel (@handle, URL or UC… id)").fill(channelUrl);
    await page.getByLabel("Name (optional)").fill("Creative Commons");
    await page.getByLabel("Webhook URL (optional)").fill(h.receiver.url());
    await page.getByRole("button", { name: "Create monitor" }).click();
    await page.getByLabel("Monitor webhook secret").waitFor();
    expect(await page.getByLabel("Monitor webhook secret").inputValue()).toMatch(/^whsec_/);
    const card = page.getByRole("listitem").filter({ has: page.getByRole("heading", { name: /Creative Commons/ }) });
    await card.getByText("active", { exact: true }).waitFor();
    await card.getByRole("button", { name: "Pause Creative Commons" }).click();
    await card.getByText("paused", { exact: true }).waitFor();
    await screenshot("monitors-paused");

    const monitors = await h.server.client.GET("/monitors");
    const monitorId = monitors.data?.data.monitors[0]?.id ?? "";
    h.publishNewUploads();
    await h.server.client.POST("/monitors/{monitorId}/check", { params: { path: { monitorId } } });
    await eventually(async () => {
      const listed = await h.server.client.GET("/monitors/{monitorId}/events", { params: { path: { monitorId } } });
      return listed.data?.data.events.some((event) => event.delivery.status === "delivered");
    });
    await card.getByRole("button", { name: "Resume Creative Commons" }).click();
    await card.getByText("active", { exact: true }).waitFor();
    await card.getByRole("button", { name: "Show events of Creative Commons" }).click();
    const events = card.getByRole("table");
    await events.getByText("monitor.videos").waitFor();
    await events.getByText("delivered").first().waitFor();
    const before = h.receiver.requests.length;
    await events
      .getByRole("button", { name: /^Redeliver evt_/ })
      .first()
      .click();
    await card.getByText("Sent again.").waitFor();
    await eventually(() => h.receiver.requests.length > before);
    await audit("monitors");
    await screenshot("monitors-events");
  });

  it("reveals the webhook secret on request and lists the delivery log with each attempt", async ({ skip }) => {
    skipWithoutBrowser(skip);
    await goTo("Webhooks", "Webhooks");
    expect(await page.getByLabel("Webhook signing secret").count(), "hidden until asked").toBe(0);
    await page.getByRole("button", { name: "Reveal secret" }).click();
    const secret = await page.getByLabel("Webhook signing secret").inputValue();
    expect(secret).toMatch(/^whsec_/);
    await page.getByRole("button", { name: "Rotate secret" }).click();
    await page.getByText("Rotated: this is the new secret.").waitFor();
    expect(await page.getByLabel("Webhook signing secret").inputValue()).not.toBe(secret);
    const delivery = page.getByRole("listitem").filter({ hasText: "monitor.videos" }).first();
    await delivery.waitFor();
    expect(await delivery.getByRole("rowheader", { name: "#1" }).count()).toBe(1);
    await audit("webhooks");
    await screenshot("webhooks");
  });

  it("deletes the monitor", async ({ skip }) => {
    skipWithoutBrowser(skip);
    await goTo("Monitors", "Monitors");
    await page.getByRole("button", { name: "Delete Creative Commons" }).click();
    await page.getByText("No monitors yet.").waitFor();
    expect((await h.server.client.GET("/monitors")).data?.data.monitors).toEqual([]);
  });

  it("searches the library for a phrase of a fetched transcript and follows the hit's link", async ({ skip }) => {
    skipWithoutBrowser(skip);
    await goTo("Library", "Library");
    await page.getByRole("heading", { name: "Recently fetched" }).waitFor();
    await page.getByRole("rowheader").first().waitFor();
    await page.getByLabel("Search your transcripts").fill(`"${phrase}"`);
    await page.getByRole("button", { name: "Search", exact: true }).click();
    const hit = page.locator(".hits > li").first();
    await hit.waitFor();
    // Stop words such as "and" are not marked: the phrase's longest word is.
    const longest = phrase.split(" ").sort((a, b) => b.length - a.length)[0] ?? "";
    expect((await hit.locator("mark").allTextContents()).join(" ").toLowerCase()).toContain(longest.toLowerCase());
    await audit("library");
    await screenshot("library-search");
    const moment = hit.locator(".snippets a").first();
    const href = (await moment.getAttribute("href")) ?? "";
    expect(href).toMatch(new RegExp(`${recordedVideos.captioned}.*[?&]t=\\d+s`));
    // The link leaves for YouTube: answer it here, so the test stays offline.
    await context.route("https://www.youtube.com/**", (route) =>
      route.fulfill({ status: 200, contentType: "text/html", body: "<title>the video</title>" }),
    );
    const [video] = await Promise.all([context.waitForEvent("page"), moment.click()]);
    await video.waitForLoadState();
    expect(video.url()).toBe(href);
    followed.push(href);
    await video.close();
  });

  it("fits a phone's width without scrolling sideways", async ({ skip }) => {
    skipWithoutBrowser(skip);
    await page.setViewportSize({ width: 375, height: 740 });
    for (const [link, heading] of [
      ["Overview", "Overview"],
      ["Keys", "API keys"],
      ["Sessions", "Sessions"],
      ["Usage", "Usage"],
      ["Monitors", "Monitors"],
      ["Webhooks", "Webhooks"],
    ] as const) {
      await goTo(link, heading);
      const overflow = await page.evaluate<number>("document.documentElement.scrollWidth - window.innerWidth");
      expect(overflow, `${heading} at 375 px`).toBeLessThanOrEqual(0);
    }
    await goTo("Overview", "Overview");
    await screenshot("phone-overview");
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it("ends its own session from the sessions page, which signs out, and the link's second use fails", async ({
    skip,
  }) => {
    skipWithoutBrowser(skip);
    await goTo("Sessions", "Sessions");
    await page.getByRole("button", { name: "End this session" }).click();
    await page.getByRole("heading", { level: 1, name: "Sign in to Verbatim" }).waitFor();
    expect(confirmed.at(-1)).toBe("End this session? You are signed out.");
    const ended = await page.evaluate<number>(`fetch("/dashboard/api/session").then((r) => r.status)`);
    expect(ended, "the cookie left in the browser is refused").toBe(401);
    await page.goto(`${baseUrl}/dashboard/sign-in#token=${linkToken}`);
    const alert = page.getByRole("alert");
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/request id req_/);
    expect(page.url()).toBe(`${baseUrl}/dashboard/sign-in`);
    await audit("sign-in-error");
    await screenshot("sign-in-link-used");
  });

  it("finds no serious or critical accessibility violation on any page", ({ skip }) => {
    skipWithoutBrowser(skip);
    expect(Object.keys(violations).length).toBeGreaterThanOrEqual(9);
    expect(violations).toEqual(Object.fromEntries(Object.keys(violations).map((name) => [name, []])));
  });

  it("requests nothing outside the server, and logs no script error", ({ skip }) => {
    skipWithoutBrowser(skip);
    const origin = new URL(baseUrl).origin;
    const elsewhere = requested.filter(
      (url) => !/^(data|blob):/.test(url) && new URL(url).origin !== origin && !followed.includes(url),
    );
    expect(elsewhere).toEqual([]);
    expect(errors).toEqual([]);
  });
});
