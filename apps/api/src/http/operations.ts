import { readFileSync } from "node:fs";
import { type OperationId, openApiV2Path } from "@verbatim/contract";
import { parse } from "yaml";

/** An operation of the OpenAPI document, with the Express path it is mounted on. */
export interface Operation {
  operationId: OperationId;
  method: "get" | "post" | "patch" | "delete" | "put";
  /** The path as the document writes it, relative to `/api/v2`: `/transcripts/jobs/{jobId}`. */
  path: string;
  /** The same path in Express syntax: `/transcripts/jobs/:jobId`. */
  expressPath: string;
  /** Whether the operation takes an `Idempotency-Key` header. */
  idempotent: boolean;
}

const methods = ["get", "post", "patch", "delete", "put"] as const;

/** The parsed v2 OpenAPI document. */
export const v2Document = parse(readFileSync(openApiV2Path, "utf8")) as {
  paths: Record<string, Partial<Record<(typeof methods)[number], DocumentOperation>>>;
  components: { parameters?: Record<string, { name: string; in: string }> };
};

interface DocumentOperation {
  operationId: OperationId;
  parameters?: Array<{ $ref?: string; name?: string; in?: string }>;
}

/** Every operation of the v2 document. */
export const v2Operations: readonly Operation[] = Object.entries(v2Document.paths).flatMap(([path, item]) =>
  methods.flatMap((method) => {
    const operation = item[method];
    if (!operation) return [];
    return [
      {
        operationId: operation.operationId,
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

function resolveParameter(parameter: { $ref?: string; name?: string }): { name?: string } {
  if (!parameter.$ref) return parameter;
  return v2Document.components.parameters?.[parameter.$ref.split("/").at(-1) ?? ""] ?? {};
}
