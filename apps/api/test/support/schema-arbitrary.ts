import fc from "fast-check";
import { isObject, type JsonObject, type OpenApiDocument, resolveSchema } from "./openapi.ts";

/**
 * fast-check arbitraries drawn from the JSON Schemas of an OpenAPI document: values a schema
 * accepts (`validValue`) and values near its edges that it refuses (`brokenValue`). The
 * document's request schemas use `type`, `enum`, `anyOf`/`oneOf`, `properties`/`required`,
 * string lengths, `pattern`, the formats `uri`, `date` and `int32`, number bounds and array
 * lengths; a keyword outside that set throws, so a new kind of schema is noticed, not skipped.
 */

const understood = new Set([
  "type",
  "enum",
  "anyOf",
  "oneOf",
  "properties",
  "required",
  "unevaluatedProperties",
  "additionalProperties",
  "items",
  "minItems",
  "maxItems",
  "minLength",
  "maxLength",
  "pattern",
  "format",
  "minimum",
  "maximum",
  "default",
  "description",
  "deprecated",
  "example",
  "examples",
  "title",
  "$ref",
]);

/** Sample values per schema, e.g. the document's examples of a property, drawn as often as generated ones. */
export type Samples = ReadonlyMap<JsonObject, readonly unknown[]>;

/** Arrays are generated with at most this many items beyond their minimum, so a batch stays cheap. */
const extraItems = 3;

/** Values the schema accepts. `samples` adds known-good values (recorded videos, live ids) to a schema's draw. */
export function validValue(
  document: OpenApiDocument,
  schema: JsonObject,
  samples: Samples = new Map(),
): fc.Arbitrary<unknown> {
  const resolved = resolveSchema(document, schema);
  for (const keyword of Object.keys(resolved)) {
    if (!understood.has(keyword)) throw new Error(`schema keyword ${keyword} is not generated yet`);
  }
  const generated = generatedValue(document, resolved, samples);
  const known = samples.get(resolved) ?? samples.get(schema) ?? [];
  return known.length === 0 ? generated : fc.oneof(fc.constantFrom(...known), generated);
}

function generatedValue(document: OpenApiDocument, schema: JsonObject, samples: Samples): fc.Arbitrary<unknown> {
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const branches = (schema.anyOf ?? schema.oneOf) as JsonObject[] | undefined;
  if (Array.isArray(branches)) return fc.oneof(...branches.map((branch) => validValue(document, branch, samples)));
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
  return fc.oneof(...types.map((type) => valueOfType(document, schema, type, samples)));
}

function valueOfType(
  document: OpenApiDocument,
  schema: JsonObject,
  type: string,
  samples: Samples,
): fc.Arbitrary<unknown> {
  switch (type) {
    case "null":
      return fc.constant(null);
    case "boolean":
      return fc.boolean();
    case "integer":
      return fc.integer({ min: numberOr(schema.minimum, -(2 ** 31)), max: numberOr(schema.maximum, 2 ** 31 - 1) });
    case "number":
      return fc.double({
        min: numberOr(schema.minimum, -1e9),
        max: numberOr(schema.maximum, 1e9),
        noNaN: true,
        noDefaultInfinity: true,
      });
    case "string":
      return validString(schema);
    case "array": {
      if (!isObject(schema.items)) throw new Error("an array schema without items");
      const minLength = numberOr(schema.minItems, 0);
      const maxLength = Math.min(numberOr(schema.maxItems, minLength + extraItems), minLength + extraItems);
      return fc.array(validValue(document, schema.items, samples), { minLength, maxLength });
    }
    case "object": {
      const properties = isObject(schema.properties) ? (schema.properties as Record<string, JsonObject>) : {};
      const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
      const model = Object.fromEntries(
        Object.entries(properties).map(([name, property]) => [name, validValue(document, property, samples)]),
      );
      return fc.record(model, { requiredKeys: required });
    }
    default:
      throw new Error(`schema type ${type} is not generated yet`);
  }
}

function validString(schema: JsonObject): fc.Arbitrary<string> {
  const minLength = numberOr(schema.minLength, 0);
  const maxLength = numberOr(schema.maxLength, minLength + 40);
  const fits = (value: string) => value.length >= minLength && value.length <= maxLength;
  if (schema.format === "uri") return fc.webUrl({ withQueryParameters: true }).filter(fits);
  if (schema.format === "date") return isoDate().filter(fits);
  if (typeof schema.pattern === "string") return fc.stringMatching(new RegExp(schema.pattern)).filter(fits);
  // Mostly short strings (the handlers' common case), sometimes up to the limit.
  return fc.oneof(
    {
      weight: 4,
      arbitrary: fc.string({ minLength, maxLength: Math.min(maxLength, minLength + 20), unit: "grapheme" }),
    },
    { weight: 1, arbitrary: fc.string({ minLength, maxLength, unit: "binary" }) },
  );
}

function isoDate(): fc.Arbitrary<string> {
  return fc
    .date({ min: new Date("1970-01-01T00:00:00Z"), max: new Date("2100-12-31T00:00:00Z"), noInvalidDate: true })
    .map((date) => date.toISOString().slice(0, 10));
}

/**
 * Values the schema refuses, or that sit at an edge a handler may get wrong: another JSON type,
 * one past a bound, a bad format, a value outside the enum, an unknown or missing property.
 * A few may happen to be accepted (a number for a schema of any type); the checks do not depend on it.
 */
export function brokenValue(
  document: OpenApiDocument,
  schema: JsonObject,
  samples: Samples = new Map(),
): fc.Arbitrary<unknown> {
  const resolved = resolveSchema(document, schema);
  const candidates: Array<fc.Arbitrary<unknown>> = [wrongType(resolved)];
  const types = new Set(Array.isArray(resolved.type) ? (resolved.type as string[]) : [resolved.type]);
  if (Array.isArray(resolved.enum)) {
    candidates.push(
      fc.constantFrom("", "unknown-value", String(resolved.enum[0]).toUpperCase(), ` ${String(resolved.enum[0])}`),
    );
  }
  if (types.has("string")) {
    const minLength = numberOr(resolved.minLength, 0);
    if (typeof resolved.maxLength === "number") candidates.push(fc.constant("y".repeat(resolved.maxLength + 1)));
    if (minLength > 0) candidates.push(fc.constant("z".repeat(minLength - 1)));
    if (resolved.format === "uri") {
      candidates.push(
        fc.constantFrom(
          "not a uri",
          "http//missing-colon",
          "://",
          "https://",
          "javascript:alert(1)",
          "file:///etc/passwd",
          "https://user:pw@example.com/",
          "http://127.0.0.1:1/",
          "https://[::1]/",
          "https://example.com:99999/",
        ),
      );
    }
    if (resolved.format === "date") {
      candidates.push(
        fc.constantFrom(
          "2024-13-01",
          "2024-02-30",
          "yesterday",
          "2024-1-1",
          "20240101",
          "2024-01-01T00:00:00Z",
          "9999999-01-01",
        ),
      );
    }
    if (typeof resolved.pattern === "string") {
      candidates.push(fc.constantFrom("1", "e", "en_US", "en--us", "123-abc", "en-", "-en", "😀"));
    }
    candidates.push(
      fc.constantFrom("\u0000", "\ud800", "\u202e", "%00", "../../etc", "' or 1=1 --", "$\u007bjndi:x}", "<script>"),
    );
  }
  if (types.has("integer") || types.has("number")) {
    if (typeof resolved.minimum === "number")
      candidates.push(fc.constantFrom(resolved.minimum - 1, resolved.minimum - 0.5));
    if (typeof resolved.maximum === "number")
      candidates.push(fc.constantFrom(resolved.maximum + 1, resolved.maximum + 0.5));
    candidates.push(fc.constantFrom(1.5, -0, 2 ** 53, -(2 ** 63), 1e308, Number.MAX_SAFE_INTEGER + 2));
  }
  if (types.has("array")) {
    if (typeof resolved.maxItems === "number") {
      const filler = isObject(resolved.items) ? exampleOf(document, resolved.items) : null;
      candidates.push(fc.constant(Array.from({ length: resolved.maxItems + 1 }, () => filler)));
    }
    if (numberOr(resolved.minItems, 0) > 0) candidates.push(fc.constant([]));
    if (isObject(resolved.items))
      candidates.push(fc.array(brokenValue(document, resolved.items, samples), { minLength: 1, maxLength: 3 }));
  }
  if (types.has("object")) candidates.push(brokenObject(document, resolved, samples));
  return fc.oneof(...candidates);
}

/** An object with one property broken, one required property missing, or an unknown property added. */
export function brokenObject(
  document: OpenApiDocument,
  schema: JsonObject,
  samples: Samples = new Map(),
): fc.Arbitrary<unknown> {
  const properties = isObject(schema.properties) ? (schema.properties as Record<string, JsonObject>) : {};
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const base = validValue(document, schema, samples) as fc.Arbitrary<Record<string, unknown>>;
  const mutations: Array<fc.Arbitrary<Record<string, unknown>>> = [
    fc
      .tuple(
        base,
        fc.constantFrom("unknown_field", "__proto__", "constructor", "Video", "VIDEO_ID", ""),
        fc.jsonValue(),
      )
      .map(([value, name, extra]) => withProperty(value, name, extra)),
  ];
  const names = Object.keys(properties);
  if (names.length > 0) {
    mutations.push(
      fc
        .constantFrom(...names)
        .chain((name) =>
          fc.tuple(base, fc.constant(name), brokenValue(document, properties[name] as JsonObject, samples)),
        )
        .map(([value, name, broken]) => withProperty(value, name, broken)),
    );
  }
  if (required.length > 0) {
    mutations.push(
      fc.tuple(base, fc.constantFrom(...required)).map(([value, name]) => {
        const { [name]: _dropped, ...rest } = value;
        return rest;
      }),
    );
  }
  return fc.oneof(...mutations);
}

/** Sets a property even when its name is `__proto__`, as a JSON text would. */
function withProperty(value: Record<string, unknown>, name: string, property: unknown): Record<string, unknown> {
  const copy = { ...value };
  Object.defineProperty(copy, name, { value: property, enumerable: true, configurable: true, writable: true });
  return copy;
}

/** A value of some JSON type the schema does not declare. */
function wrongType(schema: JsonObject): fc.Arbitrary<unknown> {
  const declared = new Set(Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type]);
  const byType: Array<[string, unknown]> = [
    ["null", null],
    ["boolean", true],
    ["integer", 7],
    ["number", 2.5],
    ["string", "7"],
    ["array", ["x"]],
    ["object", { x: 1 }],
  ];
  const others = byType.filter(([type]) => !declared.has(type) && !(type === "integer" && declared.has("number")));
  return fc.constantFrom(...others.map(([, value]) => value));
}

/** One value the schema accepts, for fillers. */
function exampleOf(document: OpenApiDocument, schema: JsonObject): unknown {
  const [value] = fc.sample(validValue(document, schema), { numRuns: 1, seed: 1 });
  return value;
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === "number" ? value : fallback;
}
