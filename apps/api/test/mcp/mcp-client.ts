import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { fromFixture, playerFromReelRecording } from "@verbatim/testkit/fake-youtube";
import { Ajv, type ValidateFunction } from "ajv";
import formats from "ajv-formats";
import { expect } from "vitest";
import type { YoutubeTestServer } from "../support/youtube-server.ts";

export const surfaceGo = "GJLlxj_dtq8";
/** Its English captions as get_transcript answers them by default: one plain text. */
export const surfaceGoText =
  "Microsoft's Surface Go is the smallest and cheapest Surface & it's really good. The \"Type Cover\" is sold separately.";
export const privateVideo = "8VajtrESJzA";

/** Serves one captioned video (with YouTube's German translation of its track) and one private video from the fake YouTube. */
export function registerVideos(yt: YoutubeTestServer): void {
  yt.fake
    .player(surfaceGo, fromFixture("youtube-transcript-api/youtube.innertube.json.static"))
    .timedtext({ v: surfaceGo, lang: "en" }, fromFixture("authored/GJLlxj_dtq8.en.srv3.xml"))
    .timedtext({ v: surfaceGo, lang: "en", tlang: "de" }, fromFixture("authored/GJLlxj_dtq8.en.tlang-de.srv3.xml"))
    .player(
      privateVideo,
      playerFromReelRecording("stream/youtubestreamextractordefault/notavailable/privatecontent/generated_mock_1.json"),
    );
}

/** What the server answered one HTTP request of an MCP client. */
export interface HttpAnswer {
  status: number;
  headers: Headers;
}

export interface ConnectOptions {
  /** Headers sent with every request besides the key: an `Origin`. */
  headers?: Record<string, string>;
  /** Where the status and headers of every answer are pushed, in order. */
  answers?: HttpAnswer[];
}

/** An MCP client connected to `POST /mcp` of `baseUrl` with `apiKey` as its bearer key. */
export async function connectOverHttp(baseUrl: string, apiKey: string, options: ConnectOptions = {}): Promise<Client> {
  const client = new Client({ name: "verbatim-test", version: "0.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${apiKey}`, ...options.headers } },
      fetch: async (url, init) => {
        const response = await fetch(url, init);
        options.answers?.push({ status: response.status, headers: response.headers });
        return response;
      },
    }),
  );
  return client;
}

// Strict: a schema with a keyword ajv does not know, or a type it cannot check, fails to compile. But
// not strictRequired: an output schema's `anyOf` requires either the result's fields or `error`,
// all of them defined once beside it.
const ajv = new Ajv({ strict: true, strictRequired: false, allErrors: true });
formats.default(ajv);
const compiled = new Map<object, ValidateFunction>();

/** Compiles a schema with strict ajv, once per schema object. */
export function compile(schema: object): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

/** A tool's result, asserted to hold structured content valid against the tool's `outputSchema`. */
export async function callTool(
  client: Client,
  tools: readonly Tool[],
  name: string,
  args: Record<string, unknown> = {},
): Promise<CallToolResult & { structuredContent: Record<string, unknown> }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const tool = tools.find((candidate) => candidate.name === name);
  if (!tool?.outputSchema) throw new Error(`${name} is not listed with an outputSchema`);
  expect(result.structuredContent, JSON.stringify(result)).toBeDefined();
  const validate = compile(tool.outputSchema);
  expect(validate(result.structuredContent), `${JSON.stringify(validate.errors)} in ${JSON.stringify(result)}`).toBe(
    true,
  );
  expect(result.content[0]?.type, JSON.stringify(result)).toBe("text");
  return result as CallToolResult & { structuredContent: Record<string, unknown> };
}

/** The text content of a result. */
export function textOf(result: CallToolResult): string {
  const first = result.content[0];
  return first?.type === "text" ? first.text : "";
}

/** Asserts an error result: `isError`, the code in structured content and text. */
export function expectToolError(result: CallToolResult & { structuredContent: Record<string, unknown> }, code: string) {
  expect(result.isError, JSON.stringify(result)).toBe(true);
  const error = result.structuredContent.error as { code: string; number: number; message: string };
  expect(error.code, JSON.stringify(result)).toBe(code);
  expect(textOf(result), JSON.stringify(result)).toContain(`Error ${code}`);
  return error;
}
