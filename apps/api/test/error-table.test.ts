import { readFileSync } from "node:fs";
import { errorTable, openApiV2Path } from "@verbatim/contract";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ApiError, type ErrorExtra } from "../src/errors.ts";

interface ErrorSchema {
  title: string;
  "x-status": number;
  required: string[];
  properties: { code: { enum: [string] }; number: { enum: [number] } } & Record<string, unknown>;
}

const document = parse(readFileSync(openApiV2Path, "utf8"));
const schemas: Record<string, ErrorSchema> = document.components.schemas;
const specErrors = (document.components.schemas.ApiError.oneOf as Array<{ $ref: string }>).map(({ $ref }) => {
  const schema = schemas[$ref.split("/").at(-1) ?? ""];
  if (!schema) throw new Error(`unresolved ${$ref}`);
  return schema;
});

const extraFor: Record<string, ErrorExtra> = {
  issues: { issues: [{ path: "/body/video", message: "must be string" }] },
  retry_with: { retry_with: { mode: "audio" } },
  details: { details: { max: 50, sent: 51 } },
};

function apiErrorFor(code: keyof typeof errorTable): ApiError {
  const carries = errorTable[code].carries;
  return new ApiError(code, "test", carries ? { extra: extraFor[carries] } : {});
}

describe("the server's error table", () => {
  it("holds exactly the errors of the spec's ApiError union", () => {
    expect(Object.keys(errorTable).sort()).toEqual(specErrors.map((schema) => schema.properties.code.enum[0]).sort());
  });

  it.each(specErrors.map((schema) => [schema.properties.code.enum[0], schema] as const))(
    "answers %s with the spec's number, status and extra field",
    (code, schema) => {
      const error = apiErrorFor(code as keyof typeof errorTable);
      expect(error.number).toBe(schema.properties.number.enum[0]);
      expect(error.status).toBe(schema["x-status"]);
      const carried = ["retry_with", "details", "issues"].filter((field) => field in schema.properties);
      expect(Object.keys(error.toBody("http://verbatim.test"))).toEqual([
        "code",
        "number",
        "message",
        "docs",
        ...carried,
      ]);
    },
  );

  it("answers a 5xx status only for transient (5xxx) and internal (9xxx) errors", () => {
    for (const [code, entry] of Object.entries(errorTable)) {
      const family = Math.floor(entry.number / 1000);
      expect(entry.status >= 500, `${code} ${entry.number} ${entry.status}`).toBe(family === 5 || family === 9);
    }
  });

  it("refuses an error without the field its code must carry", () => {
    expect(() => new ApiError("invalid_request", "no issues")).toThrow(TypeError);
    expect(() => new ApiError("no_captions", "no retry_with")).toThrow(TypeError);
  });

  it("lets an error whose extra the spec makes optional go without it, and only that one", () => {
    const optional = Object.entries(errorTable).filter(([, entry]) => entry.extraOptional);
    expect(optional.map(([code, entry]) => [code, entry.carries])).toEqual([["invalid_input", "retry_with"]]);
    expect(new ApiError("invalid_input", "malformed").toBody("http://verbatim.test")).not.toHaveProperty("retry_with");
    expect(
      new ApiError("invalid_input", "a show", {
        extra: { retry_with: { endpoint: "/api/v2/transcripts/channel" } },
      }).toBody("http://verbatim.test").retry_with,
    ).toEqual({ endpoint: "/api/v2/transcripts/channel" });
    expect(() => new ApiError("invalid_input", "details", { extra: { details: {} } })).toThrow(TypeError);
  });

  it("refuses an extra field the code does not carry", () => {
    expect(() => new ApiError("not_found", "with issues", { extra: { issues: [] } })).toThrow(TypeError);
  });

  it("links each error to its page in the catalog", () => {
    expect(apiErrorFor("rate_limited").toBody("https://verbatim.example.com").docs).toBe(
      "https://verbatim.example.com/docs/errors/rate_limited",
    );
  });
});
