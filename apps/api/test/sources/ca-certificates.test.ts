import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rootCertificates } from "node:tls";
import { promisify } from "node:util";
import { startConnectProxy } from "@verbatim/testkit/connect-proxy";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { caCertificatesFrom } from "../../src/adapters/net/ca-certificates.ts";
import { createPublicFetch } from "../../src/adapters/net/public-fetch.ts";
import { createUpstreamFetch } from "../../src/adapters/youtube/upstream-fetch.ts";
import { failure } from "../audio-sources/helpers.ts";

const run = promisify(execFile);
let directory: string;
let caFile: string;
let server: Server;
let origin: string;

/** A test CA and a certificate it signs for 127.0.0.1, made by openssl at test time. */
async function makeCertificates(into: string): Promise<{ key: string; cert: string }> {
  const file = (name: string) => join(into, name);
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  await run(
    "openssl",
    ["req", "-x509", ...ec, "-keyout", file("ca.key"), "-out", file("ca.pem")].concat([
      "-days",
      "2",
      "-subj",
      "/CN=Verbatim test CA",
    ]),
  );
  await run("openssl", [
    "req",
    ...ec,
    "-keyout",
    file("server.key"),
    "-out",
    file("server.csr"),
    "-subj",
    "/CN=127.0.0.1",
  ]);
  await writeFile(file("server.ext"), "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n");
  await run("openssl", [
    "x509",
    "-req",
    ...["-in", file("server.csr"), "-CA", file("ca.pem"), "-CAkey", file("ca.key"), "-CAcreateserial"],
    ...["-out", file("server.pem"), "-days", "2", "-extfile", file("server.ext")],
  ]);
  return { key: await readFile(file("server.key"), "utf8"), cert: await readFile(file("server.pem"), "utf8") };
}

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), "verbatim-ca-"));
  caFile = join(directory, "ca.pem");
  server = createServer(await makeCertificates(directory), (req, res) => {
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ path: req.url }));
  });
  await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
  origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((closed) => server.close(closed));
  await rm(directory, { recursive: true, force: true });
});

describe("caCertificatesFrom: VERBATIM_CA_FILE", () => {
  it("answers undefined when the variable is unset, so Node's bundled roots apply", () => {
    expect(caCertificatesFrom({})).toBeUndefined();
  });

  it("answers Node's bundled roots and the file's certificate", async () => {
    const ca = caCertificatesFrom({ VERBATIM_CA_FILE: caFile });
    expect(ca?.length).toBe(rootCertificates.length + 1);
    expect(ca?.at(-1)).toBe((await readFile(caFile, "utf8")).trim());
  });

  it("fails with the path and the reason when the file cannot be read", () => {
    const missing = join(directory, "missing.pem");
    expect(() => caCertificatesFrom({ VERBATIM_CA_FILE: missing })).toThrow(
      `VERBATIM_CA_FILE names ${missing}, which cannot be read (ENOENT)`,
    );
  });

  it("fails when the file holds no certificate, or one that does not parse", async () => {
    const key = join(directory, "ca.key");
    expect(() => caCertificatesFrom({ VERBATIM_CA_FILE: key })).toThrow(
      `VERBATIM_CA_FILE names ${key}, which holds no PEM certificate (-----BEGIN CERTIFICATE-----)`,
    );
    const broken = join(directory, "broken.pem");
    await writeFile(broken, "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n");
    expect(() => caCertificatesFrom({ VERBATIM_CA_FILE: broken })).toThrow(
      new RegExp(`VERBATIM_CA_FILE names ${broken}, whose certificate 1 does not parse`),
    );
  });
});

describe("the extra certificate authorities in Node's upstream fetches", () => {
  it("make the public fetch trust a server the test CA signed, which it refuses without them", async () => {
    const ca = caCertificatesFrom({ VERBATIM_CA_FILE: caFile });
    const trusting = createPublicFetch({ allowPrivateTargets: true, timeoutMs: 5_000, ...(ca ? { ca } : {}) });
    const plain = createPublicFetch({ allowPrivateTargets: true, timeoutMs: 5_000 });
    try {
      expect(await (await trusting(`${origin}/feed.xml`)).json()).toEqual({ path: "/feed.xml" });
      const refused = await failure(plain(`${origin}/feed.xml`));
      expect(refused.code).toBe("connection");
    } finally {
      await Promise.all([trusting.close(), plain.close()]);
    }
  });

  it("make the YouTube upstream fetch trust it, directly and through a CONNECT proxy", async () => {
    const ca = caCertificatesFrom({ VERBATIM_CA_FILE: caFile });
    const proxy = await startConnectProxy();
    const untrusting = { origin, attemptTimeoutMs: 5_000, budgetMs: 5_000, maxAttempts: 1 };
    const trusting = { ...untrusting, ...(ca ? { ca } : {}) };
    try {
      for (const upstreamFetch of [
        createUpstreamFetch(trusting),
        createUpstreamFetch({ ...trusting, proxyUrls: [proxy.url] }),
      ]) {
        const response = await upstreamFetch("https://www.youtube.com/youtubei/v1/player");
        expect(await response.json()).toEqual({ path: "/youtubei/v1/player" });
      }
      for (const upstreamFetch of [
        createUpstreamFetch(untrusting),
        createUpstreamFetch({ ...untrusting, proxyUrls: [proxy.url] }),
      ]) {
        await expect(upstreamFetch("https://www.youtube.com/")).rejects.toThrow(/connection to YouTube failed/);
      }
    } finally {
      await proxy.close();
    }
  });
});
