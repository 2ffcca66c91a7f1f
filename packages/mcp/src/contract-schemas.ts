import { readOpenApiDocument } from "@verbatim/contract";

/** A JSON Schema as MCP carries it: a plain JSON object. */
export type JsonSchema = { [keyword: string]: unknown };

interface OpenApiDocument {
  components: { schemas: Record<string, JsonSchema> };
}

const componentPrefix = "#/components/schemas/";

/** OpenAPI's numeric formats: meaningful to code generators, unknown to JSON Schema validators. */
const openApiOnlyFormats = new Set(["int32", "int64", "float", "double"]);

let document: OpenApiDocument | undefined;

function components(): Record<string, JsonSchema> {
  document ??= readOpenApiDocument("v2") as unknown as OpenApiDocument;
  return document.components.schemas;
}

/**
 * A schema of the contract by name, self-contained: MCP clients get each tool's schema alone, so
 * every `$ref` is inlined, and what only OpenAPI understands (`discriminator`, `x-` extensions,
 * numeric formats) is dropped. `unevaluatedProperties` goes too: outputs stay open, as the
 * contract's responses are to its clients, and inputs are closed by `inputSchemaOf`.
 */
export function contractSchema(name: string): JsonSchema {
  const schema = components()[name];
  if (!schema) throw new Error(`the OpenAPI document has no schema ${name}`);
  return standalone(schema);
}

/** One property of a contract schema, with its description and constraints. */
export function contractProperty(schemaName: string, property: string): JsonSchema {
  const properties = contractSchema(schemaName).properties as Record<string, JsonSchema> | undefined;
  const picked = properties?.[property];
  if (!picked) throw new Error(`the OpenAPI schema ${schemaName} has no property ${property}`);
  return picked;
}

/** Several properties of a contract schema, by name, in the order given. */
export function contractProperties(schemaName: string, names: readonly string[]): Record<string, JsonSchema> {
  return Object.fromEntries(names.map((name) => [name, contractProperty(schemaName, name)]));
}

function standalone(node: unknown): JsonSchema {
  return strip(node) as JsonSchema;
}

function strip(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(strip);
  if (node === null || typeof node !== "object") return node;
  const { $ref, ...rest } = node as JsonSchema;
  const resolved: JsonSchema = typeof $ref === "string" ? contractSchema(referencedName($ref)) : {};
  const own: JsonSchema = {};
  for (const [keyword, value] of Object.entries(rest)) {
    if (keyword === "discriminator" || keyword === "unevaluatedProperties" || keyword.startsWith("x-")) continue;
    if (keyword === "format" && typeof value === "string" && openApiOnlyFormats.has(value)) continue;
    // `properties` maps names to schemas: its keys are never keywords.
    own[keyword] =
      keyword === "properties"
        ? Object.fromEntries(Object.entries(value as JsonSchema).map(([name, schema]) => [name, strip(schema)]))
        : strip(value);
  }
  // A `$ref` with siblings (`description`, `default`) keeps the siblings: they describe this use of the type.
  return { ...resolved, ...own };
}

function referencedName(ref: string): string {
  if (!ref.startsWith(componentPrefix)) throw new Error(`unsupported $ref ${ref}`);
  return ref.slice(componentPrefix.length);
}
