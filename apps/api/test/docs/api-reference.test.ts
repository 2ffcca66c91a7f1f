import nodeSamples from "@verbatim/sdk/code-samples.json" with { type: "json" };
import pythonSamples from "@verbatim/sdk-python/code-samples.json" with { type: "json" };
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { type JsonObject, readVerbatimDocument } from "../support/openapi.ts";
import { startServer, type TestServer } from "../support/server.ts";

interface ServedDocument extends JsonObject {
  info: { description: string } & JsonObject;
  servers: unknown;
  paths: Record<string, Record<string, JsonObject>>;
  webhooks: Record<string, Record<string, JsonObject>>;
}

const samples: Record<string, unknown[]> = nodeSamples.operations;
const python: Record<string, unknown[]> = pythonSamples.operations;
const contract = readVerbatimDocument() as unknown as ServedDocument;

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

async function get(path: string): Promise<{ response: Response; body: string }> {
  const response = await fetch(`${server.baseUrl}${path}`);
  return { response, body: await response.text() };
}

async function servedJson(): Promise<ServedDocument> {
  const { response, body } = await get("/openapi.json");
  expect(response.status, body.slice(0, 500)).toBe(200);
  expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
  return JSON.parse(body) as ServedDocument;
}

/** Every operation of a paths or webhooks section, keyed `method path`. */
function operationsIn(section: Record<string, Record<string, JsonObject>>): Array<[string, JsonObject]> {
  return Object.entries(section).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]): [string, JsonObject] => [`${method} ${path}`, operation]),
  );
}

/** The served document less what serving adds, to compare with the contract. */
function withoutAdditions(document: ServedDocument): JsonObject {
  const { servers: _servers, info, paths, webhooks, ...rest } = structuredClone(document);
  for (const [, operation] of [...operationsIn(paths), ...operationsIn(webhooks)]) delete operation["x-codeSamples"];
  return { ...rest, info: { ...info, description: contract.info.description }, paths, webhooks };
}

describe("GET /openapi.json: 200", () => {
  it("is the contract, without a key, apart from its servers, its error catalog link and its code samples", async () => {
    const { servers: _servers, ...contractRest } = contract;
    expect(withoutAdditions(await servedJson())).toEqual(contractRest);
  });

  it("names this server as the only server", async () => {
    const document = await servedJson();
    expect(document.servers).toEqual([{ url: `${server.baseUrl}/api/v2`, description: "This server." }]);
  });

  it("links the error catalog of this server from the description", async () => {
    const { info } = await servedJson();
    expect(info.description.startsWith(contract.info.description)).toBe(true);
    expect(info.description).toContain(`[the error catalog](${server.baseUrl}/docs/errors)`);
    expect((await get("/docs/errors")).response.status).toBe(200);
  });

  it("gives every operation and webhook the Node SDK's JavaScript sample, then the Python SDK's, as x-codeSamples", async () => {
    const document = await servedJson();
    const operations = [...operationsIn(document.paths), ...operationsIn(document.webhooks)];
    expect(operations.length).toBe(Object.keys(samples).length);
    expect(operations.length).toBe(Object.keys(python).length);
    for (const [name, operation] of operations) {
      const operationId = operation.operationId as string;
      const codeSamples = operation["x-codeSamples"] as Array<{ lang: string; source: string }> | undefined;
      expect(codeSamples, name).toEqual([...(samples[operationId] ?? []), ...(python[operationId] ?? [])]);
      expect(
        codeSamples?.map((sample) => sample.lang),
        name,
      ).toEqual(["JavaScript", "Python"]);
      expect(codeSamples?.[0]?.source, name).toContain("@verbatim/sdk");
      expect(codeSamples?.[1]?.source, name).toContain("from verbatim import");
    }
  });
});

describe("GET /openapi.yaml: 200", () => {
  it("parses to the same document as /openapi.json", async () => {
    const { response, body } = await get("/openapi.yaml");
    expect(response.status, body.slice(0, 500)).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/yaml; charset=utf-8");
    expect(parse(body)).toEqual(await servedJson());
  });
});

describe("GET /openapi.v1.json and /openapi.v1.yaml: 200", () => {
  const v1Contract = readVerbatimDocument("v1") as unknown as ServedDocument;

  it("is v1's contract, apart from its servers: this server's /api/v1", async () => {
    const { response, body } = await get("/openapi.v1.json");
    expect(response.status, body.slice(0, 500)).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    const { servers, ...rest } = JSON.parse(body) as ServedDocument;
    const { servers: _servers, ...contractRest } = v1Contract;
    expect(rest).toEqual(contractRest);
    expect(servers).toEqual([{ url: `${server.baseUrl}/api/v1`, description: "This server." }]);
  });

  it("serves the same document as YAML", async () => {
    const { response, body } = await get("/openapi.v1.yaml");
    expect(response.status, body.slice(0, 500)).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/yaml; charset=utf-8");
    expect(parse(body)).toEqual(JSON.parse((await get("/openapi.v1.json")).body));
  });
});

describe("a configured public URL", () => {
  it("is the served document's server, whatever the request's Host", async () => {
    const behindProxy = await startServer({
      deps: { config: { version: "0.0.0-test", publicUrl: "https://verbatim.example/transcripts" } },
    });
    try {
      for (const path of ["/openapi.json", "/openapi.yaml"]) {
        const response = await fetch(`${behindProxy.baseUrl}${path}`);
        const document = parse(await response.text()) as ServedDocument;
        expect(document.servers, path).toEqual([
          { url: "https://verbatim.example/transcripts/api/v2", description: "This server." },
        ]);
        expect(document.info.description, path).toContain("(https://verbatim.example/transcripts/docs/errors)");
      }
    } finally {
      await behindProxy.close();
    }
  });
});

describe("GET /docs: 200", () => {
  it("is an HTML page that loads only scripts from this server and names no other origin", async () => {
    const { response, body } = await get("/docs");
    expect(response.status, body).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const sources = [...body.matchAll(/<(?:script|link|img)\b[^>]*\b(?:src|href)="([^"]*)"/g)].map((match) => match[1]);
    expect(sources, body).toEqual([expect.stringMatching(/^\/docs\/assets\/scalar-api-reference-[\d.]+\.js$/)]);
    expect(body).not.toMatch(/https?:|\/\/[a-z]/i);
    expect(body).toContain('"url": "/openapi.json"');
    expect(body).toContain('"url": "/openapi.v1.json"');
  });

  it("serves Scalar's script with a long-lived cache header", async () => {
    const page = (await get("/docs")).body;
    const script = page.match(/<script src="([^"]+)"/)?.[1] ?? "";
    const { response, body } = await get(script);
    expect(response.status, body.slice(0, 500)).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(body).toContain("createApiReference");
  });
});

describe("unknown paths beside the reference: 404", () => {
  it.each([
    "/docs/assets/scalar-api-reference-0.0.0.js",
    "/docs/assets/standalone.js",
    "/docs/nothing",
    "/openapi.yml",
    "/openapi.json/extra",
  ])("answers %s with the not_found envelope", async (path) => {
    const { response, body } = await get(path);
    expect(response.status, body).toBe(404);
    expect(JSON.parse(body)).toMatchObject({ ok: false, error: { code: "not_found", number: 1301 } });
  });

  it("answers POST /openapi.json with the not_found envelope", async () => {
    const response = await fetch(`${server.baseUrl}/openapi.json`, { method: "POST" });
    const body = await response.text();
    expect(response.status, body).toBe(404);
    expect(JSON.parse(body)).toMatchObject({ ok: false, error: { code: "not_found" } });
  });
});
