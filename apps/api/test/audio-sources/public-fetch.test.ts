import { startConnectProxy } from "@verbatim/testkit/connect-proxy";
import { type FakePodcastHost, lookupWith, startFakePodcastHost } from "@verbatim/testkit/fake-podcast-host";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { publicAddressRule } from "../../src/adapters/net/address-rule.ts";
import { createPublicFetch, type PublicFetch, type PublicFetchOptions } from "../../src/adapters/net/public-fetch.ts";
import { closing, failure } from "./helpers.ts";

let host: FakePodcastHost;
const publicFetch = closing(
  (options: Partial<PublicFetchOptions> = {}): PublicFetch =>
    createPublicFetch({ allowPrivateTargets: false, timeoutMs: 2_000, ...options }),
);

/** Lets the fake host's 127.0.0.1 stand in for a public server; every other address obeys the real rule. */
const loopbackHostIsPublic = (address: string) => (address === "127.0.0.1" ? null : publicAddressRule(address));

beforeAll(async () => {
  host = await startFakePodcastHost();
  host.serve("/hello", { body: "hello", contentType: "text/plain" });
});

afterEach(async () => {
  await publicFetch.closeAll();
});

afterAll(async () => {
  await host.close();
});

describe("public fetch: 422 invalid_input (3005) for addresses the rule refuses", () => {
  it("refuses a URL on 127.0.0.1 before sending anything, naming the rule", async () => {
    const before = host.requests.length;
    const error = await failure(publicFetch()(host.url("/hello")));
    expect([error.status, error.code, error.number]).toEqual([422, "invalid_input", 3005]);
    expect(error.message).toBe(
      `${host.url("/hello")} points to 127.0.0.1, a loopback address; only public addresses are fetched (VERBATIM_ALLOW_PRIVATE_TARGETS=1 lifts this).`,
    );
    expect(host.requests.length).toBe(before);
  });

  it("refuses a host name that resolves to 127.0.0.1, at connect time", async () => {
    const fetch = publicFetch({ lookup: lookupWith({ "podcasts.example": "127.0.0.1" }) });
    const error = await failure(fetch(host.urlOn("podcasts.example", "/hello")));
    expect([error.status, error.code, error.number]).toEqual([422, "invalid_input", 3005]);
    expect(error.message).toMatch(
      /podcasts\.example:\d+\/hello resolves to 127\.0\.0\.1, a loopback address; only public addresses are fetched \(VERBATIM_ALLOW_PRIVATE_TARGETS=1 lifts this\)\.$/,
    );
  });

  it("refuses a name with one private answer among public ones, whichever would be connected", async () => {
    const fetch = publicFetch({
      lookup: (_hostname, _options, callback) =>
        callback(null, [
          { address: "93.184.215.14", family: 4 },
          { address: "169.254.169.254", family: 4 },
        ]),
    });
    const error = await failure(fetch("http://metadata.example/latest"));
    expect(error.message).toMatch(/resolves to 169\.254\.169\.254, a link-local address/);
  });

  it("refuses IPv6 loopback and IPv4-mapped private literals", async () => {
    expect((await failure(publicFetch()(`http://[::1]:${host.port}/hello`))).message).toMatch(
      /points to ::1, a loopback address/,
    );
    expect((await failure(publicFetch()("http://[::ffff:10.0.0.1]/"))).message).toMatch(
      /points to ::ffff:a00:1, a private address \(inside ipv4Mapped IPv6/,
    );
  });

  it("refuses, at the redirect, a public host that redirects to a private address", async () => {
    host.redirect("/to-private", "http://10.0.0.7/feed.xml");
    const error = await failure(publicFetch({ addressRule: loopbackHostIsPublic })(host.url("/to-private")));
    expect([error.status, error.code, error.number]).toEqual([422, "invalid_input", 3005]);
    expect(error.message).toBe(
      `${host.url("/to-private")} redirects to http://10.0.0.7/feed.xml, which points to 10.0.0.7, a private address; only public addresses are fetched (VERBATIM_ALLOW_PRIVATE_TARGETS=1 lifts this).`,
    );
  });

  it("refuses a redirect to a second host name that resolves to a private address", async () => {
    host.redirect("/to-internal", host.urlOn("internal.example", "/hello"));
    const fetch = publicFetch({
      addressRule: loopbackHostIsPublic,
      lookup: lookupWith({ "internal.example": "192.168.1.20" }),
    });
    const error = await failure(fetch(host.url("/to-internal")));
    expect(error.message).toMatch(
      /redirects to http:\/\/internal\.example:\d+\/hello, which resolves to 192\.168\.1\.20, a private address/,
    );
  });

  it("refuses schemes other than http and https, also at a redirect", async () => {
    expect((await failure(publicFetch()("ftp://files.example/show.mp3"))).message).toBe(
      "ftp://files.example/show.mp3 uses ftp:; only http and https addresses are fetched.",
    );
    host.redirect("/to-file", "file:///etc/passwd");
    const error = await failure(publicFetch({ addressRule: loopbackHostIsPublic })(host.url("/to-file")));
    expect([error.code, error.number]).toEqual(["invalid_input", 3005]);
    expect(error.message).toMatch(/^file:\/\/\/etc\/passwd \(redirected from .*\/to-file\) uses file:/);
  });

  it("refuses an address with a user name or password, also at a redirect, without repeating the password", async () => {
    const before = host.requests.length;
    const direct = await failure(
      publicFetch({ allowPrivateTargets: true })(host.url("/hello").replace("//", "//me:pw-31@")),
    );
    host.redirect("/to-credentials", host.url("/hello").replace("//", "//me:pw-31@"));
    const redirected = await failure(publicFetch({ allowPrivateTargets: true })(host.url("/to-credentials")));
    expect([direct.status, direct.code, direct.number]).toEqual([422, "invalid_input", 3005]);
    expect(direct.message).toBe(
      "The address carries a user name or password; addresses with credentials are not fetched.",
    );
    expect([redirected.status, redirected.code, redirected.number]).toEqual([422, "invalid_input", 3005]);
    expect(redirected.message).toBe(
      `${host.url("/to-credentials")} redirects to an address that carries a user name or password; addresses with credentials are not fetched.`,
    );
    expect(host.requests.slice(before).map(({ path }) => path)).toEqual(["/to-credentials"]);
  });

  it("refuses http when https only is asked (webhooks), unless private targets are allowed", async () => {
    const error = await failure(publicFetch({ httpsOnly: true })(host.url("/hello")));
    expect(error.message).toMatch(/only https addresses are admitted \(VERBATIM_ALLOW_PRIVATE_TARGETS=1 admits http\)/);
    const response = await publicFetch({ httpsOnly: true, allowPrivateTargets: true })(host.url("/hello"));
    expect(await response.text()).toBe("hello");
  });
});

describe("public fetch: allowPrivateTargets", () => {
  it("lifts the address rule", async () => {
    const response = await publicFetch({ allowPrivateTargets: true })(host.url("/hello"));
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("hello");
  });

  it("lifts it for names resolving to loopback too", async () => {
    const fetch = publicFetch({ allowPrivateTargets: true, lookup: lookupWith({ "podcasts.example": "127.0.0.1" }) });
    const response = await fetch(host.urlOn("podcasts.example", "/hello"));
    expect(await response.text()).toBe("hello");
    expect(host.requestsTo("/hello").at(-1)?.host).toBe(`podcasts.example:${host.port}`);
  });
});

describe("public fetch: redirects", () => {
  it("follows up to five redirects, checking each hop, and reports the final URL", async () => {
    for (let hop = 1; hop <= 5; hop++) host.redirect(`/chain/${hop}`, hop === 5 ? "/hello" : `/chain/${hop + 1}`);
    const response = await publicFetch({ allowPrivateTargets: true })(host.url("/chain/1"));
    expect(await response.text()).toBe("hello");
    expect(response.url).toBe(host.url("/hello"));
  });

  it("answers 503 upstream_error (5001) beyond five", async () => {
    host.redirect("/loop", "/loop");
    const error = await failure(publicFetch({ allowPrivateTargets: true })(host.url("/loop")));
    expect([error.status, error.code, error.number]).toEqual([503, "upstream_error", 5001]);
    expect(error.message).toBe(`${host.url("/loop")} redirects more than 5 times.`);
  });

  it("hands a 3xx back unfollowed with redirect: manual (webhooks)", async () => {
    host.redirect("/moved", "/hello", 301);
    const response = await publicFetch({ allowPrivateTargets: true })(host.url("/moved"), { redirect: "manual" });
    expect(response.status).toBe(301);
    expect(response.headers.get("location")).toBe("/hello");
  });
});

describe("public fetch: 503 for network failures", () => {
  it("maps a server that never answers to timeout (5002)", async () => {
    host.stall("/stall");
    const error = await failure(publicFetch({ allowPrivateTargets: true, timeoutMs: 300 })(host.url("/stall")));
    expect([error.status, error.code, error.number]).toEqual([503, "timeout", 5002]);
    expect(error.message).toBe(`127.0.0.1:${host.port} did not answer ${host.url("/stall")} in time.`);
  });

  it("maps a caller's deadline to timeout (5002)", async () => {
    host.stall("/stall-deadline");
    const fetch = publicFetch({ allowPrivateTargets: true });
    const error = await failure(fetch(host.url("/stall-deadline"), { signal: AbortSignal.timeout(200) }));
    expect([error.code, error.number]).toEqual(["timeout", 5002]);
  });

  it("rethrows the caller's own abort unchanged", async () => {
    host.stall("/stall-abort");
    const controller = new AbortController();
    const pending = publicFetch({ allowPrivateTargets: true })(host.url("/stall-abort"), { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
  });

  it("maps a refused connection to connection (5003)", async () => {
    const closed = await startFakePodcastHost();
    await closed.close();
    const error = await failure(publicFetch({ allowPrivateTargets: true })(closed.url("/")));
    expect([error.status, error.code, error.number]).toEqual([503, "connection", 5003]);
    expect(error.message).toMatch(/^The connection to 127\.0\.0\.1:\d+ failed \(ECONNREFUSED\)/);
  });

  it("answers upstream statuses as they are, for the caller to judge", async () => {
    host.fail("/broken", 500);
    const response = await publicFetch({ allowPrivateTargets: true })(host.url("/broken"));
    expect(response.status).toBe(500);
  });
});

describe("public fetch through VERBATIM_PROXY_URLS", () => {
  /** Proxies that tunnel every request to the fake host, each noting the targets it was asked for. */
  async function pinnedProxies(count: number) {
    const seen = Array.from({ length: count }, () => [] as string[]);
    const proxies = await Promise.all(
      seen.map((requests) =>
        startConnectProxy({
          pinnedTo: host.origin,
          onTunnel: (request) => requests.push(request.url ?? ""),
          onForward: (request) => requests.push(request.url ?? ""),
        }),
      ),
    );
    return { seen, urls: proxies.map((proxy) => proxy.url), close: () => Promise.all(proxies.map((p) => p.close())) };
  }

  it("sends a public name to the proxy, which resolves it, and takes the proxies in turn", async () => {
    const proxies = await pinnedProxies(2);
    try {
      const fetch = publicFetch({ proxyUrls: proxies.urls });
      const before = host.requestsTo("/hello").length;
      for (let call = 0; call < 4; call++) {
        const response = await fetch("http://podcasts.example/hello");
        expect(await response.text()).toBe("hello");
      }
      expect(
        host
          .requestsTo("/hello")
          .slice(before)
          .map((request) => request.host),
      ).toEqual(Array(4).fill("podcasts.example"));
      // A tunnel carries the requests after it too; each proxy was asked for the name as written.
      for (const targets of proxies.seen) {
        expect(targets.length).toBeGreaterThan(0);
        expect(new Set(targets)).toEqual(new Set(["podcasts.example:80"]));
      }
    } finally {
      await proxies.close();
    }
  });

  it.each([
    ["http://127.0.0.1/hello", "127.0.0.1, a loopback address"],
    ["http://0x7f.1/hello", "127.0.0.1, a loopback address"],
    ["http://[::ffff:10.0.0.7]/hello", "a private address"],
    ["http://localhost./hello", "this machine (localhost)"],
  ])("422 invalid_input (3005): refuses %s before the proxy sees it", async (address, refusal) => {
    const proxies = await pinnedProxies(1);
    try {
      const error = await failure(publicFetch({ proxyUrls: proxies.urls })(address));
      expect([error.status, error.code, error.number]).toEqual([422, "invalid_input", 3005]);
      expect(error.message).toContain(refusal);
      expect(proxies.seen).toEqual([[]]);
    } finally {
      await proxies.close();
    }
  });

  it("422 invalid_input (3005): refuses a port other than 80 and 443, even on a redirect", async () => {
    host.redirect("/to-odd-port", "http://podcasts.example:8443/hello");
    const proxies = await pinnedProxies(1);
    try {
      const fetch = publicFetch({ proxyUrls: proxies.urls });
      const direct = await failure(fetch("http://podcasts.example:6379/"));
      expect([direct.status, direct.code, direct.number]).toEqual([422, "invalid_input", 3005]);
      expect(direct.message).toBe(
        "http://podcasts.example:6379/ is on port 6379; through a proxy (VERBATIM_PROXY_URLS) only ports 80 and 443 are fetched.",
      );
      const redirected = await failure(fetch("http://podcasts.example/to-odd-port"));
      expect(redirected.message).toMatch(/^http:\/\/podcasts\.example:8443\/hello is on port 8443/);
      expect(proxies.seen).toEqual([["podcasts.example:80"]]);
    } finally {
      await proxies.close();
    }
  });
});
