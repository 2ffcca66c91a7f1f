import { readFileSync } from "node:fs";
import { readOpenApiDocument } from "@verbatim/contract";
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import formats from "ajv-formats";

/** A JSON value of an OpenAPI document, read without trusting its shape. */
export type JsonObject = Record<string, unknown>;

/** The parts of an OpenAPI 3.1 document these tests read. */
export interface OpenApiDocument {
  paths: Record<string, Record<string, unknown>>;
  components?: JsonObject;
}

/** A parameter object, after its `$ref` is followed. */
export interface Parameter {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  schema?: JsonObject;
  examples?: Record<string, { value: unknown }>;
}

/** One operation of a document. */
export interface DocumentOperation {
  operationId: string;
  method: string;
  /** The path as the document writes it, e.g. `/transcripts/jobs/{jobId}`. */
  path: string;
  /** Path-level and operation-level parameters, `$ref`s followed; the operation's win on a clash. */
  parameters: Parameter[];
  /** The `application/json` request body schema and its canonical pointer, when the operation takes one. */
  jsonBody: { pointer: string; schema: JsonObject } | undefined;
  /** The request body examples of `application/json`, in document order. */
  bodyExamples: Array<{ name: string; value: unknown }>;
}

const methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/** Verbatim's generated document of a version, v2 unless asked. */
export function readVerbatimDocument(version: "v2" | "v1" = "v2"): OpenApiDocument {
  return readOpenApiDocument(version) as unknown as OpenApiDocument;
}

/** A JSON document such as the hosted service's published contract. */
export function readJsonDocument(url: URL): OpenApiDocument {
  return JSON.parse(readFileSync(url, "utf8")) as OpenApiDocument;
}

/** Escapes one segment of a JSON pointer (RFC 6901). */
function pointerSegment(segment: string): string {
  return segment.replaceAll("~", "~0").replaceAll("/", "~1");
}

/** A JSON object (not an array, not null). */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The value at a JSON pointer of the document. */
function at(document: OpenApiDocument, pointer: string): unknown {
  let node: unknown = document;
  for (const raw of pointer.split("/").slice(1)) {
    const segment = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (!isObject(node) && !Array.isArray(node)) throw new Error(`${pointer} does not resolve`);
    node = (node as Record<string, unknown>)[segment];
  }
  if (node === undefined) throw new Error(`${pointer} does not resolve`);
  return node;
}

/**
 * Walks `segments` from the document's root, following every local `$ref` on the way, and
 * answers the node reached and its canonical pointer. Response and parameter objects are
 * often `$ref`s (`#/components/responses/Error`), which a JSON Schema validator cannot follow.
 */
export function follow(document: OpenApiDocument, segments: readonly string[]): { node: unknown; pointer: string } {
  let node: unknown = document;
  let pointer = "";
  const hop = (): void => {
    while (isObject(node) && typeof node.$ref === "string" && node.$ref.startsWith("#")) {
      pointer = node.$ref.slice(1);
      node = at(document, pointer);
    }
  };
  for (const segment of segments) {
    hop();
    node = isObject(node) || Array.isArray(node) ? (node as Record<string, unknown>)[segment] : undefined;
    if (node === undefined) return { node, pointer: `${pointer}/${pointerSegment(segment)}` };
    pointer += `/${pointerSegment(segment)}`;
  }
  hop();
  return { node, pointer };
}

/** Every operation of the document, with its parameters resolved and its JSON body located. */
export function operationsOf(document: OpenApiDocument): DocumentOperation[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    methods.flatMap((method) => {
      const operation = item[method];
      if (!isObject(operation) || typeof operation.operationId !== "string") return [];
      const base = ["paths", path, method];
      const parameters = new Map<string, Parameter>();
      for (const owner of [["paths", path], base]) {
        const { node: list } = follow(document, [...owner, "parameters"]);
        if (!Array.isArray(list)) continue;
        list.forEach((_, index) => {
          const { node } = follow(document, [...owner, "parameters", String(index)]);
          if (isObject(node)) parameters.set(`${String(node.in)} ${String(node.name)}`, node as unknown as Parameter);
        });
      }
      const media = follow(document, [...base, "requestBody", "content", "application/json"]);
      const body = isObject(media.node)
        ? follow(document, [...base, "requestBody", "content", "application/json", "schema"])
        : undefined;
      const examples = isObject(media.node) && isObject(media.node.examples) ? media.node.examples : {};
      return [
        {
          operationId: operation.operationId,
          method,
          path,
          parameters: [...parameters.values()],
          jsonBody: body && isObject(body.node) ? { pointer: body.pointer, schema: body.node } : undefined,
          bodyExamples: Object.entries(examples).map(([name, example]) => ({
            name,
            value: isObject(example) ? example.value : undefined,
          })),
        },
      ];
    }),
  );
}

/** A subschema with its `$ref` followed: the documents' property schemas are often references. */
export function resolveSchema(document: OpenApiDocument, schema: JsonObject): JsonObject {
  let current = schema;
  while (typeof current.$ref === "string" && current.$ref.startsWith("#")) {
    const target = at(document, current.$ref.slice(1));
    if (!isObject(target)) throw new Error(`${current.$ref} is not a schema`);
    current = target;
  }
  return current;
}

/**
 * The pointer of an operation's JSON response schema for a status, falling back to `NXX` and
 * `default` as OpenAPI does; `undefined` when the document defines none.
 */
export function responseSchemaPointer(
  document: OpenApiDocument,
  operation: Pick<DocumentOperation, "path" | "method">,
  status: number,
): string | undefined {
  for (const key of [String(status), `${String(status)[0]}XX`, "default"]) {
    const found = follow(document, [
      "paths",
      operation.path,
      operation.method,
      "responses",
      key,
      "content",
      "application/json",
      "schema",
    ]);
    if (found.node !== undefined) return found.pointer;
  }
  return undefined;
}

/** Validates values against the schemas of one OpenAPI 3.1 document with ajv (draft 2020-12). */
export class DocumentValidator {
  readonly document: OpenApiDocument;
  private readonly ajv: Ajv2020;
  private readonly id: string;
  private readonly compiled = new Map<string, ValidateFunction>();

  /**
   * `discriminator` turns on ajv's support of the keyword; ajv rejects `discriminator.mapping`,
   * which Verbatim's document uses, so that document is validated without it (the `oneOf`
   * alone decides). `strict: false` lets the OpenAPI keywords (`example`, `x-status`) pass.
   */
  constructor(document: OpenApiDocument, id: string, options: { discriminator: boolean }) {
    this.document = document;
    this.id = id;
    this.ajv = new Ajv2020({ strict: false, allErrors: true, discriminator: options.discriminator });
    formats.default(this.ajv);
    this.ajv.addSchema(document as object, id);
  }

  /** The errors of `value` against the schema at `pointer` (e.g. `/components/schemas/ErrorEnvelope`), or none. */
  errors(pointer: string, value: unknown): ErrorObject[] {
    const validate = this.compile(pointer);
    return validate(value) ? [] : [...(validate.errors ?? [])];
  }

  private compile(pointer: string): ValidateFunction {
    const found = this.compiled.get(pointer);
    if (found) return found;
    const encoded = pointer
      .split("/")
      .map((segment) => encodeURIComponent(segment))
      .join("/");
    const validate = this.ajv.compile({ $ref: `${this.id}#${encoded}` });
    this.compiled.set(pointer, validate);
    return validate;
  }
}

/** Errors as one line each, for assertion messages. */
export function describeErrors(errors: readonly ErrorObject[]): string {
  return errors
    .map((error) => `${error.instancePath || "/"} ${error.message ?? ""} ${JSON.stringify(error.params)}`)
    .join("\n");
}

/**
 * The values at the edges of what a schema of the document accepts: each enum value, the shortest and
 * longest strings, the smallest and largest numbers, both booleans, and arrays of the fewest and
 * most items. A value inside the edges is accepted when both edges are (the schemas are simple).
 */
export function boundaryValues(document: OpenApiDocument, schema: JsonObject): unknown[] {
  const resolved = resolveSchema(document, schema);
  if (Array.isArray(resolved.enum)) return resolved.enum;
  const values: unknown[] = [];
  for (const combinator of ["oneOf", "anyOf"]) {
    const branches = resolved[combinator];
    if (Array.isArray(branches)) for (const branch of branches) values.push(...boundaryValues(document, branch));
  }
  const declared = resolved.type;
  for (const type of Array.isArray(declared) ? declared : [declared]) {
    if (type === "null") values.push(null);
    if (type === "boolean") values.push(true, false);
    if (type === "integer" || type === "number") {
      if (typeof resolved.minimum === "number") values.push(resolved.minimum);
      if (typeof resolved.maximum === "number") values.push(resolved.maximum);
    }
    if (type === "string") {
      const minLength = typeof resolved.minLength === "number" ? resolved.minLength : 0;
      values.push(stringOf(resolved, minLength));
      if (typeof resolved.maxLength === "number") values.push(stringOf(resolved, resolved.maxLength));
    }
    if (type === "array" && isObject(resolved.items)) {
      const items = boundaryValues(document, resolved.items);
      const minItems = typeof resolved.minItems === "number" ? resolved.minItems : 0;
      const filler = items[0];
      for (const item of items) values.push(Array.from({ length: Math.max(minItems, 1) }, () => item));
      if (minItems === 0) values.push([]);
      if (typeof resolved.maxItems === "number") values.push(Array.from({ length: resolved.maxItems }, () => filler));
    }
  }
  return values;
}

/** A string of `length` characters that also satisfies the schema's `format`. */
function stringOf(schema: JsonObject, length: number): string {
  if (schema.format !== "uri") return "x".repeat(length);
  const origin = "https://example.com/";
  return origin + "x".repeat(Math.max(length - origin.length, 0));
}

/** A short name of a value for a test title. */
export function shownValue(value: unknown): string {
  if (typeof value === "string" && value.length > 20) return `a string of ${value.length} characters`;
  if (Array.isArray(value) && value.length > 2) return `an array of ${value.length} items`;
  if (Array.isArray(value) && JSON.stringify(value).length > 40) {
    return `an array of ${value.length} item${value.length === 1 ? "" : "s"} of ${String(value[0]).length} characters`;
  }
  return JSON.stringify(value);
}
