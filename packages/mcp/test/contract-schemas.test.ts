import { readFileSync } from "node:fs";
import { openApiV2Path } from "@verbatim/contract";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { toolDefinitions } from "../src/tools/index.ts";

const document = parse(readFileSync(openApiV2Path, "utf8")) as {
  components: { schemas: Record<string, { properties: Record<string, Record<string, unknown>> }> };
};
const schemas = document.components.schemas;

function tool(name: string) {
  const found = toolDefinitions.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found as unknown as { inputSchema: { properties: Record<string, unknown> }; outputSchema: unknown };
}

/** Every keyword of a schema, at any depth, with the values it holds. */
function* keywordsOf(node: unknown): Generator<[string, unknown]> {
  if (Array.isArray(node)) for (const item of node) yield* keywordsOf(item);
  else if (node !== null && typeof node === "object") {
    for (const [keyword, value] of Object.entries(node)) {
      yield [keyword, value];
      yield* keywordsOf(value);
    }
  }
}

describe("tool schemas taken from the OpenAPI document", () => {
  it("gives get_transcript the contract's video and language exactly, and mode with its enum inlined", () => {
    const { properties } = tool("get_transcript").inputSchema;
    expect(properties.video).toEqual(schemas.TranscriptRequest?.properties.video);
    expect(properties.language).toEqual(schemas.TranscriptRequest?.properties.language);
    expect(properties.mode).toEqual({
      type: "string",
      enum: ["auto", "captions", "audio"],
      description: schemas.TranscriptRequest?.properties.mode?.description,
      default: "auto",
    });
  });

  it("gives the list tools the contract's limit and cursor, and get_job the contract's job id pattern", () => {
    const channel = tool("list_channel_videos").inputSchema.properties;
    expect(channel.limit).toEqual({
      type: "integer",
      minimum: 1,
      maximum: 50,
      default: 5,
      description: schemas.ChannelRequest?.properties.limit?.description,
    });
    expect(channel.cursor).toMatchObject({ type: "string", maxLength: 256 });
    expect(tool("get_job").inputSchema.properties.job_id).toMatchObject({ pattern: "^job_[0-9A-HJKMNP-TV-Z]{26}$" });
  });

  it("leaves no $ref, discriminator, unevaluatedProperties, x- extension or OpenAPI-only numeric format in any tool schema", () => {
    for (const definition of toolDefinitions) {
      for (const [keyword, value] of keywordsOf([definition.inputSchema, definition.outputSchema])) {
        expect(keyword, definition.name).not.toBe("$ref");
        expect(keyword, definition.name).not.toBe("discriminator");
        expect(keyword, definition.name).not.toBe("unevaluatedProperties");
        expect(keyword.startsWith("x-"), `${definition.name}: ${keyword}`).toBe(false);
        if (keyword === "format") expect(["int32", "int64", "float", "double"], definition.name).not.toContain(value);
      }
    }
  });
});
