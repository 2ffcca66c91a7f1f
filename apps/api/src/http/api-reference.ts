import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { apiReference as scalarReference } from "@scalar/express-api-reference";
import { readOpenApiDocument } from "@verbatim/contract";
import nodeSamples from "@verbatim/sdk/code-samples.json" with { type: "json" };
import pythonSamples from "@verbatim/sdk-python/code-samples.json" with { type: "json" };
import { Router } from "express";
import { stringify } from "yaml";
import type { AppDeps } from "./app-deps.ts";
import { publicBaseUrl } from "./locals.ts";

/** The parts of the generated document this file reads or writes. */
interface OpenApiDocument {
  openapi: string;
  info: { description?: string } & Record<string, unknown>;
  servers?: unknown;
  paths?: Record<string, PathItem>;
  webhooks?: Record<string, PathItem>;
}

type PathItem = Record<string, { operationId?: string } & Record<string, unknown>>;

interface CodeSample {
  lang: string;
  label: string;
  source: string;
}

/** The contract as served: each answer names the server it came from. */
interface ServedDocument {
  json(baseUrl: string): string;
  yaml(baseUrl: string): string;
}

const httpMethods = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"]);
const yamlOptions = { lineWidth: 0, aliasDuplicateObjects: false } as const;

/**
 * Serves the API reference outside `/api/v2`, without a key: `/docs` (Scalar, with a switch
 * between v2 and v1), v2's document at `/openapi.json` and `/openapi.yaml`, v1's at
 * `/openapi.v1.json` and `/openapi.v1.yaml`. The page loads Scalar's script from this server,
 * so it works offline.
 */
export function apiReference(deps: AppDeps): Router {
  const documents = servedDocuments();
  const bundle = scalarBundle();
  const router = Router();
  const serve = (route: string, document: ServedDocument) => {
    router.get(`${route}.json`, (req, res) => {
      res.type("json").send(document.json(publicBaseUrl(req, deps.config.publicUrl)));
    });
    router.get(`${route}.yaml`, (req, res) => {
      res.type("application/yaml").send(document.yaml(publicBaseUrl(req, deps.config.publicUrl)));
    });
  };
  serve("/openapi", documents.v2);
  serve("/openapi.v1", documents.v1);
  router.get(bundle.route, (_req, res) => {
    // pnpm keeps packages under node_modules/.pnpm, a dot directory that sendFile refuses by default.
    res.sendFile(bundle.file, { maxAge: "1y", immutable: true, dotfiles: "allow" });
  });
  router.get(
    "/docs",
    scalarReference({
      pageTitle: "Verbatim API reference",
      // Scalar shows a switch between its sources; the first marked default opens.
      sources: [
        { title: "Verbatim API v2", slug: "v2", url: "/openapi.json", default: true },
        { title: "Verbatim API v1 (deprecated)", slug: "v1", url: "/openapi.v1.json" },
      ],
      cdn: bundle.route,
      // Everything that would reach past this server is off: fonts, telemetry, the hosted client, the agent.
      withDefaultFonts: false,
      telemetry: false,
      hideClientButton: true,
      showDeveloperTools: "never",
      agent: { disabled: true },
      mcp: { disabled: true },
      // An empty icon: without one the browser asks for /favicon.ico, which this API answers 404.
      favicon: "data:,",
      defaultOpenAllTags: true,
    }),
  );
  return router;
}

/** Scalar's single-file browser build, under a path that changes with its version so browsers may keep it for good. */
function scalarBundle(): { route: string; file: string } {
  // The package exports no path to its browser build, so it is found beside its entry point.
  const distDir = path.dirname(createRequire(import.meta.url).resolve("@scalar/api-reference"));
  const { version } = JSON.parse(readFileSync(path.join(distDir, "..", "package.json"), "utf8")) as { version: string };
  return {
    route: `/docs/assets/scalar-api-reference-${version}.js`,
    file: path.join(distDir, "browser", "standalone.js"),
  };
}

let built: { v2: ServedDocument; v1: ServedDocument } | undefined;

/** Parsing and printing the contracts takes a few hundred milliseconds, so it happens once per process. */
function servedDocuments(): { v2: ServedDocument; v1: ServedDocument } {
  built ??= {
    v2: buildServedDocument("v2", "/api/v2", { withSamples: true, withErrorCatalog: true }),
    // v1 keeps its own error codes, which the catalog of v2's does not describe, and the SDKs speak only v2.
    v1: buildServedDocument("v1", "/api/v1", { withSamples: false, withErrorCatalog: false }),
  };
  return built;
}

function buildServedDocument(
  version: "v2" | "v1",
  basePath: string,
  options: { withSamples: boolean; withErrorCatalog: boolean },
): ServedDocument {
  const contract = readOpenApiDocument(version) as unknown as OpenApiDocument;
  const { openapi, info, servers: _templatedServers, ...rest } = contract;
  if (options.withSamples) {
    addCodeSamples(rest.paths);
    addCodeSamples(rest.webhooks);
  }
  const restJson = JSON.stringify(rest);
  const restYaml = stringify(rest, yamlOptions);
  const head = (baseUrl: string) => ({
    openapi,
    info: options.withErrorCatalog
      ? {
          ...info,
          description: `${info.description ?? ""}\n\nEvery error's code, number and meaning: [the error catalog](${baseUrl}/docs/errors).`,
        }
      : info,
    servers: [{ url: `${baseUrl}${basePath}`, description: "This server." }],
  });
  // Only the head depends on the request; the rest is printed once and joined to it as text.
  return {
    json: (baseUrl) => `${JSON.stringify(head(baseUrl)).slice(0, -1)},${restJson.slice(1)}`,
    yaml: (baseUrl) => stringify(head(baseUrl), yamlOptions) + restYaml,
  };
}

/** Puts the SDKs' generated samples on each operation as `x-codeSamples`, the extension Scalar and Redoc read: Node's, then Python's. */
function addCodeSamples(pathItems: Record<string, PathItem> | undefined): void {
  const sdkSamples: Array<Record<string, CodeSample[] | undefined>> = [
    nodeSamples.operations,
    pythonSamples.operations,
  ];
  for (const pathItem of Object.values(pathItems ?? {})) {
    for (const [method, operation] of Object.entries(pathItem)) {
      if (!httpMethods.has(method) || !operation.operationId) continue;
      const operationSamples = sdkSamples.flatMap((samples) => samples[operation.operationId as string] ?? []);
      if (operationSamples.length > 0) operation["x-codeSamples"] = operationSamples;
    }
  }
}
