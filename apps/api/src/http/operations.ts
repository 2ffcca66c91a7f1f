import { readFileSync } from "node:fs";
import {
  type DashboardOperationId,
  type OperationId,
  openApiDashboardPath,
  openApiV1Path,
  openApiV2Path,
} from "@verbatim/contract";
import { parse } from "yaml";

/** An operation of an OpenAPI document, with the Express path it is mounted on. */
export interface Operation<Id extends string = OperationId> {
  operationId: Id;
  method: "get" | "post" | "patch" | "delete" | "put";
  /** The path as the document writes it, relative to the version's base (`/api/v2`): `/transcripts/jobs/{jobId}`. */
  path: string;
  /** The same path in Express syntax: `/transcripts/jobs/:jobId`. */
  expressPath: string;
  /** Whether the operation takes an `Idempotency-Key` header. */
  idempotent: boolean;
}

const methods = ["get", "post", "patch", "delete", "put"] as const;

interface Document {
  paths: Record<string, Partial<Record<(typeof methods)[number], DocumentOperation>>>;
  components: { parameters?: Record<string, { name: string; in: string }> };
}

interface DocumentOperation {
  operationId: string;
  parameters?: Array<{ $ref?: string; name?: string; in?: string }>;
}

/** Every operation of an OpenAPI document. */
function operationsOf<Id extends string>(documentPath: string): readonly Operation<Id>[] {
  const document = parse(readFileSync(documentPath, "utf8")) as Document;
  const resolveParameter = (parameter: { $ref?: string; name?: string }): { name?: string } =>
    parameter.$ref ? (document.components.parameters?.[parameter.$ref.split("/").at(-1) ?? ""] ?? {}) : parameter;
  return Object.entries(document.paths).flatMap(([path, item]) =>
    methods.flatMap((method) => {
      const operation = item[method];
      if (!operation) return [];
      return [
        {
          operationId: operation.operationId as Id,
          method,
          path,
          expressPath: path.replace(/\{(\w+)\}/g, ":$1"),
          idempotent: (operation.parameters ?? []).some(
            (parameter) => resolveParameter(parameter).name?.toLowerCase() === "idempotency-key",
          ),
        },
      ];
    }),
  );
}

/** Every operation of the v2 document. */
export const v2Operations: readonly Operation[] = operationsOf<OperationId>(openApiV2Path);

/** Every operation of the v1 document: each is also a v2 operation, served by the same route. */
export const v1Operations: readonly Operation[] = operationsOf<OperationId>(openApiV1Path);

/** Every operation of the dashboard's document. */
export const dashboardOperations: readonly Operation<DashboardOperationId>[] =
  operationsOf<DashboardOperationId>(openApiDashboardPath);
