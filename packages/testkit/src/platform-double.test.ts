import { readFile } from "node:fs/promises";
import { fetch, ProxyAgent } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "./eventually.ts";
import { type PlatformDouble, platformFixture, startPlatformDouble } from "./platform-double.ts";

const tiktokFixture = (path: string) => readFile(platformFixture(`tiktok/${path}`), "utf8");
const CAPTIONED_POST = "https://www.tiktok.com/@verbatim.tests/video/7400000000000000001";

describe("the platform double", () => {
  let double: PlatformDouble;
  let agent: ProxyAgent;

  beforeAll(async () => {
    double = await startPlatformDouble({ platforms: ["tiktok"] });
    agent = new ProxyAgent({ uri: double.proxyUrl, requestTls: { ca: await readFile(double.caFile, "utf8") } });
  });
  afterAll(async () => {
    await agent.close();
    await double.close();
  });

  it("answers an HTTPS request through a CONNECT tunnel with the routed file, under a certificate the test CA signed", async () => {
    const response = await fetch(`${CAPTIONED_POST}?is_from_webapp=1`, { dispatcher: agent });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await response.text()).toBe(await tiktokFixture("pages/captions.html"));
    expect(double.requests).toContainEqual(expect.objectContaining({ method: "CONNECT", url: "www.tiktok.com:443" }));
    expect(double.requests).toContainEqual(
      expect.objectContaining({ method: "GET", url: `${CAPTIONED_POST}?is_from_webapp=1` }),
    );
  });

  it("presents a certificate that a client without the test CA refuses", async () => {
    const untrusting = new ProxyAgent(double.proxyUrl);
    await expect(fetch(CAPTIONED_POST, { dispatcher: untrusting })).rejects.toThrow();
    await untrusting.close();
  });

  it("answers a route's redirect as authored", async () => {
    const response = await fetch("https://www.tiktok.com/@verbatim.tests/video/7400000000000000005", {
      dispatcher: agent,
      redirect: "manual",
    });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toMatch(/^https:\/\/www\.tiktok\.com\/login\?/);
  });

  it("serves generated speech media, and a byte range of it", async () => {
    const media =
      "https://v16-webapp-prime.us.tiktok.com/video/tos/useast5/tos-useast5-ve-0068c001/verbatim-7400000000000000001/";
    const whole = Buffer.from(await (await fetch(media, { dispatcher: agent })).arrayBuffer());
    expect(whole.subarray(4, 8).toString("latin1")).toBe("ftyp");
    const part = await fetch(media, { dispatcher: agent, headers: { range: "bytes=4-7" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 4-7/${whole.length}`);
    expect(await part.text()).toBe("ftyp");
  });

  it("answers 404 with an empty body to a URL no route matches, and records it", async () => {
    const response = await fetch("https://www.tiktok.com/@verbatim.tests/video/7499999999999999999", {
      dispatcher: agent,
    });
    expect(response.status).toBe(404);
    expect(await response.text()).toBe("");
    expect(double.requests).toContainEqual(
      expect.objectContaining({
        method: "GET",
        url: "https://www.tiktok.com/@verbatim.tests/video/7499999999999999999",
      }),
    );
  });

  it("numbers the client's connections: a kept-alive tunnel's requests share its CONNECT's number", async () => {
    const keptAlive = new ProxyAgent({
      uri: double.proxyUrl,
      requestTls: { ca: await readFile(double.caFile, "utf8") },
      connections: 1,
    });
    const before = double.requests.length;
    for (let attempt = 0; attempt < 2; attempt += 1) {
      await (await fetch(CAPTIONED_POST, { dispatcher: keptAlive })).text();
    }
    await keptAlive.close();
    const seen = double.requests.slice(before);
    expect(seen.map(({ method, url }) => `${method} ${url}`)).toEqual([
      "CONNECT www.tiktok.com:443",
      `GET ${CAPTIONED_POST}`,
      `GET ${CAPTIONED_POST}`,
    ]);
    expect(new Set(seen.map((request) => request.connection)).size).toBe(1);
    expect(seen[0]?.connection).toBeGreaterThan(0);
  });

  it("answers a route served at run time before the tables, until it is withdrawn", async () => {
    const withdraw = double.serve({ url: CAPTIONED_POST, status: 410, text: "served at run time" });
    const served = await fetch(CAPTIONED_POST, { dispatcher: agent });
    expect([served.status, await served.text()]).toEqual([410, "served at run time"]);
    withdraw();
    const tabled = await fetch(CAPTIONED_POST, { dispatcher: agent });
    expect(tabled.status).toBe(200);
    await tabled.text();
  });

  it("holds the answers under a prefix, recorded at once, until released", async () => {
    const release = double.hold(CAPTIONED_POST);
    const before = double.requests.length;
    let answered = false;
    const held = fetch(CAPTIONED_POST, { dispatcher: agent }).then((response) => {
      answered = true;
      return response;
    });
    await eventually(() => double.requests.slice(before).some((request) => request.url === CAPTIONED_POST));
    expect(answered).toBe(false);
    release();
    const response = await held;
    expect(response.status).toBe(200);
    await response.text();
  });

  it("answers plain HTTP from the same tables, in absolute form and through a CONNECT tunnel to port 80", async () => {
    const plainPost = CAPTIONED_POST.replace("https:", "http:");
    for (const proxyTunnel of [false, true]) {
      const plainAgent = new ProxyAgent({ uri: double.proxyUrl, proxyTunnel });
      const response = await fetch(plainPost, { dispatcher: plainAgent, redirect: "manual" });
      await plainAgent.close();
      expect(response.status).toBe(301);
      expect(response.headers.get("location")).toBe(CAPTIONED_POST);
    }
    expect(double.requests).toContainEqual(expect.objectContaining({ method: "CONNECT", url: "www.tiktok.com:80" }));
    expect(double.requests.filter((request) => request.url === plainPost)).toHaveLength(2);
  });
});
