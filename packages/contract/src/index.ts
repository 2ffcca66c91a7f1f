import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type * as Dashboard from "../generated/dashboard.ts";
import { errorTable } from "../generated/errors.v2.ts";
import type * as V1 from "../generated/v1.ts";
import type { components, operations, paths } from "../generated/v2.ts";

export type { components, Dashboard, operations, paths, V1 };
export { errorTable };

// Found through the package's exports rather than beside this module, because the compiled
// service bundles this module and runs it from elsewhere.
const contractFile = (name: string) => createRequire(import.meta.url).resolve(`@verbatim/contract/${name}`);

/** Absolute path of the v2 OpenAPI document. */
export const openApiV2Path = contractFile("openapi.v2.yaml");

/** Absolute path of the dashboard's OpenAPI document: the operations only a dashboard session may call. */
export const openApiDashboardPath = contractFile("openapi.dashboard.yaml");

/** Absolute path of the v1 OpenAPI document: the deprecated version, frozen. */
export const openApiV1Path = contractFile("openapi.v1.yaml");

/**
 * The same documents as JSON, for programs that read them: parsing the YAML takes about a second
 * of CPU, the JSON milliseconds. Each has one field more than its YAML, `x-generated`.
 */
export const openApiJsonPaths = {
  v2: contractFile("openapi.v2.json"),
  v1: contractFile("openapi.v1.json"),
  dashboard: contractFile("openapi.dashboard.json"),
} as const;

/**
 * A document of the contract as its YAML says it, parsed from its JSON twin: the twin's
 * `x-generated` note is left out.
 */
export function readOpenApiDocument(version: keyof typeof openApiJsonPaths): Record<string, unknown> {
  const { "x-generated": _generatedNote, ...document } = JSON.parse(readFileSync(openApiJsonPaths[version], "utf8"));
  return document;
}

/** A stable error code of the v2 API. */
export type ErrorCode = keyof typeof errorTable;

/** The extra field an error carries: `retry_with`, `details`, `issues`, or none. */
export type ErrorExtra = (typeof errorTable)[ErrorCode]["carries"];

/** The operation ids of the v2 API. */
export type OperationId = keyof operations;

/** The JSON body an operation answers with a given status. */
export type ResponseBody<Op extends OperationId, Status extends number> = operations[Op]["responses"] extends {
  [S in Status]: { content: { "application/json": infer Body } };
}
  ? Body
  : never;

/** The JSON request body of an operation. */
export type RequestBody<Op extends OperationId> = operations[Op] extends {
  requestBody: { content: { "application/json": infer Body } };
}
  ? Body
  : never;

/** A schema of the v2 API by name. */
export type Schema<Name extends keyof components["schemas"]> = components["schemas"][Name];

/** The operation ids of the v1 API: each one is also a v2 operation, served by the same route. */
export type V1OperationId = keyof V1.operations;

/** The JSON body a v1 operation answers with a given status. */
export type V1ResponseBody<Op extends V1OperationId, Status extends number> = V1.operations[Op]["responses"] extends {
  [S in Status]: { content: { "application/json": infer Body } };
}
  ? Body
  : never;

/** A schema of the v1 API by name. */
export type V1Schema<Name extends keyof V1.components["schemas"]> = V1.components["schemas"][Name];

/** The operation ids of the dashboard's API. */
export type DashboardOperationId = keyof Dashboard.operations;

/** The JSON body a dashboard operation answers with a given status. */
export type DashboardResponseBody<
  Op extends DashboardOperationId,
  Status extends number,
> = Dashboard.operations[Op]["responses"] extends {
  [S in Status]: { content: { "application/json": infer Body } };
}
  ? Body
  : never;

/** The JSON request body of a dashboard operation. */
export type DashboardRequestBody<Op extends DashboardOperationId> = Dashboard.operations[Op] extends {
  requestBody: { content: { "application/json": infer Body } };
}
  ? Body
  : never;
