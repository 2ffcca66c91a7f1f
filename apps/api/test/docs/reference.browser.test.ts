import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readVerbatimDocument } from "../support/openapi.ts";
import { startServer, type TestServer } from "../support/server.ts";

const chromiumPath = "/usr/bin/chromium";
const chromiumMissing = existsSync(chromiumPath) ? undefined : `${chromiumPath} is not installed (.ci/run installs it)`;
const screenshotPath = fileURLToPath(new URL("../../test-artifacts/docs.png", import.meta.url));

/** The summary of every operation and webhook of the contract: what a reader looks for on the page. */
const summaries = (() => {
  const document = readVerbatimDocument() as { paths: object; webhooks: object };
  return [...Object.values(document.paths), ...Object.values(document.webhooks)].flatMap((pathItem) =>
    Object.values(pathItem as Record<string, { summary: string }>).map((operation) => operation.summary),
  );
})();

/** The summary of every operation of v1's contract, which the version switch shows. */
const v1Summaries = Object.values(readVerbatimDocument("v1").paths).flatMap((pathItem) =>
  Object.values(pathItem as Record<string, { summary: string }>).map((operation) => operation.summary),
);

let server: TestServer;
let userDataDir: string;
let context: BrowserContext;
let page: Page;
const requested: string[] = [];
const errors: string[] = [];

beforeAll(async () => {
  if (chromiumMissing) return;
  server = await startServer();
  userDataDir = await mkdtemp(path.join(tmpdir(), "verbatim-chromium-"));
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
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(`console: ${message.text()} (${message.location().url})`);
  });
  page.on("pageerror", (error) => errors.push(`pageerror: ${error.message}`));
  await page.goto(`${server.baseUrl}/docs`, { waitUntil: "networkidle" });
  await page.getByRole("heading", { level: 1, name: "Verbatim API" }).waitFor();
  await renderEverySection(page);
  await mkdir(path.dirname(screenshotPath), { recursive: true });
  await page.screenshot({ path: screenshotPath, fullPage: true });
}, 180_000);

afterAll(async () => {
  if (chromiumMissing) return;
  await context.close();
  await server.close();
  await rm(userDataDir, { recursive: true, force: true });
});

/** Scalar renders a section once it scrolls into view; before that a screenshot shows empty placeholders. */
async function renderEverySection(page: Page): Promise<void> {
  // Strings, not functions: this project's TypeScript has no DOM types.
  const pageHeight = () => page.evaluate<number>("document.documentElement.scrollHeight");
  for (let top = 0; top < (await pageHeight()); top += 800) {
    await page.evaluate(`window.scrollTo(0, ${top})`);
    await page.waitForTimeout(50);
  }
  await page.evaluate("window.scrollTo(0, 0)");
  await page.getByRole("heading", { level: 1, name: "Verbatim API" }).waitFor();
}

describe("GET /docs in Chromium, offline", () => {
  it("lists every operation and webhook of the contract in the sidebar", async ({ skip }) => {
    skip(chromiumMissing !== undefined, chromiumMissing);
    const sidebar = page.locator("aside");
    const missing: string[] = [];
    for (const summary of summaries) {
      if (!(await sidebar.getByText(summary, { exact: true }).first().isVisible())) missing.push(summary);
    }
    expect(summaries.length).toBeGreaterThan(20);
    expect(missing, (await sidebar.locator("a").allTextContents()).join(" | ")).toEqual([]);
  });

  it("renders a section headed by each operation's summary", async ({ skip }) => {
    skip(chromiumMissing !== undefined, chromiumMissing);
    const content = page.locator("main");
    const missing: string[] = [];
    for (const summary of summaries) {
      if ((await content.getByRole("heading", { name: summary, exact: true }).count()) === 0) missing.push(summary);
    }
    expect(missing).toEqual([]);
  });

  it("shows the SDK's sample for an operation", async ({ skip }) => {
    skip(chromiumMissing !== undefined, chromiumMissing);
    await expect.poll(() => page.getByText("verbatim.transcripts.video(").count()).toBeGreaterThan(0);
  });

  it("requests nothing outside this server", async ({ skip }) => {
    skip(chromiumMissing !== undefined, chromiumMissing);
    const origin = new URL(server.baseUrl).origin;
    const elsewhere = requested.filter((url) => !/^(data|blob):/.test(url) && new URL(url).origin !== origin);
    expect(elsewhere).toEqual([]);
    expect(requested.map((url) => new URL(url).pathname)).toEqual(
      expect.arrayContaining(["/docs", "/openapi.json", expect.stringMatching(/^\/docs\/assets\/.+\.js$/)]),
    );
  });

  it("logs no console error and throws no page error", ({ skip }) => {
    skip(chromiumMissing !== undefined, chromiumMissing);
    expect(errors).toEqual([]);
  });

  it("links the error catalog of this server", async ({ skip }) => {
    skip(chromiumMissing !== undefined, chromiumMissing);
    const link = page.getByRole("link", { name: "the error catalog" });
    expect(await link.isVisible()).toBe(true);
    expect(await link.getAttribute("href")).toBe(`${server.baseUrl}/docs/errors`);
    const catalog = await context.newPage();
    await catalog.goto(`${server.baseUrl}/docs/errors`);
    expect(await catalog.getByRole("heading", { level: 1 }).textContent()).toBe("Verbatim errors");
  });

  it("switches to the v1 reference, which lists v1's operations", async ({ skip }) => {
    skip(chromiumMissing !== undefined, chromiumMissing);
    await page.locator("aside").getByRole("button", { name: "Verbatim API v2" }).click();
    await page.getByRole("option", { name: "Verbatim API v1 (deprecated)" }).click();
    await page.getByRole("heading", { level: 1, name: "Verbatim API v1" }).waitFor();
    expect(new URL(page.url()).hash).toBe("#v1");
    expect(requested.map((url) => new URL(url).pathname)).toContain("/openapi.v1.json");
    const sidebar = page.locator("aside");
    const missing: string[] = [];
    for (const summary of v1Summaries) {
      if (!(await sidebar.getByText(summary, { exact: true }).first().isVisible())) missing.push(summary);
    }
    expect(v1Summaries.length).toBeGreaterThan(5);
    expect(missing, (await sidebar.locator("a").allTextContents()).join(" | ")).toEqual([]);
    // Only v1 words its key check this way: the page shows v1's own document, not v2's again.
    await expect
      .poll(() => page.locator("main").getByRole("heading", { name: "Validate the key and read the balance" }).count())
      .toBeGreaterThan(0);
    expect(errors).toEqual([]);
  });
});
