import {
  type DashboardOperationId,
  type OperationId,
  type openApiJsonPaths,
  readOpenApiDocument,
} from "@verbatim/contract";

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
  /** The query parameters whose schema is an integer. */
  integerQueryParameters: readonly string[];
}

const methods = ["get", "post", "patch", "delete", "put"] as const;

interface Document {
  paths: Record<string, Partial<Record<(typeof methods)[number], DocumentOperation>>>;
  components: { parameters?: Record<string, DocumentParameter>; schemas?: Record<string, DocumentSchema> };
}

interface DocumentOperation {
  operationId: string;
  parameters?: DocumentParameter[];
}

interface DocumentParameter {
  $ref?: string;
  name?: string;
  in?: string;
  schema?: DocumentSchema;
}

interface DocumentSchema {
  $ref?: string;
  type?: string | string[];
}

/** Every operation of an OpenAPI document. */
function operationsOf<Id extends string>(version: keyof typeof openApiJsonPaths): readonly Operation<Id>[] {
  const document = readOpenApiDocument(version) as unknown as Document;
  const resolveParameter = (parameter: DocumentParameter): DocumentParameter =>
    parameter.$ref ? (document.components.parameters?.[lastSegment(parameter.$ref)] ?? {}) : parameter;
  const resolveSchema = (schema: DocumentSchema | undefined): DocumentSchema | undefined =>
    schema?.$ref ? resolveSchema(document.components.schemas?.[lastSegment(schema.$ref)]) : schema;
  const isInteger = (schema: DocumentSchema | undefined): boolean => {
    const type = resolveSchema(schema)?.type;
    return Array.isArray(type) ? type.includes("integer") : type === "integer";
  };
  return Object.entries(document.paths).flatMap(([path, item]) =>
    methods.flatMap((method) => {
      const operation = item[method];
      if (!operation) return [];
      const parameters = (operation.parameters ?? []).map(resolveParameter);
      return [
        {
          operationId: operation.operationId as Id,
          method,
          path,
          expressPath: path.replace(/\{(\w+)\}/g, ":$1"),
          idempotent: parameters.some((parameter) => parameter.name?.toLowerCase() === "idempotency-key"),
          integerQueryParameters: parameters
            .filter((parameter) => parameter.in === "query" && isInteger(parameter.schema))
            .flatMap((parameter) => (parameter.name === undefined ? [] : [parameter.name])),
        },
      ];
    }),
  );
}

/** The name a local `$ref` points at: `ChunkSize` of `#/components/schemas/ChunkSize`. */
function lastSegment(ref: string): string {
  return ref.split("/").at(-1) ?? "";
}

/** Every operation of the v2 document. */
export const v2Operations: readonly Operation[] = operationsOf<OperationId>("v2");

/** Every operation of the v1 document: each is also a v2 operation, served by the same route. */
export const v1Operations: readonly Operation[] = operationsOf<OperationId>("v1");

/** Every operation of the dashboard's document. */
export const dashboardOperations: readonly Operation<DashboardOperationId>[] =
  operationsOf<DashboardOperationId>("dashboard");
