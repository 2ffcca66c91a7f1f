import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { type BareOr, type BareStringOperation, type JsonBody, Verbatim } from "../src/index.ts";
import { FaultServer, type ReceivedRequest } from "./support/fault-server.ts";

// A bare string and the object it stands for must send the same request. The server records
// what it receives and answers one envelope that every method below can read.

type BareCall<Op extends BareStringOperation> = (verbatim: Verbatim, request: BareOr<JsonBody<Op>>) => Promise<unknown>;
/** A call of the tables below as the loops make it: the field's name is known only at run time there. */
type AnyCall = (verbatim: Verbatim, request: string | Record<string, string>) => Promise<unknown>;

// Complete by type: an operation that gains or loses a sole required string field in the contract
// changes BareStringOperation, and this table stops compiling until its method follows.
const onePage: { [Op in BareStringOperation]: BareCall<Op> } = {
  fetchVideoTranscript: (verbatim, request) => verbatim.transcripts.video(request),
  listTranscriptLanguages: (verbatim, request) => verbatim.transcripts.languages(request),
  getVideoMetadata: (verbatim, request) => verbatim.videos.metadata(request),
  fetchChannelVideos: (verbatim, request) => verbatim.transcripts.channel(request),
  fetchPlaylistVideos: (verbatim, request) => verbatim.transcripts.playlist(request),
  searchVideos: (verbatim, request) => verbatim.transcripts.search(request),
  searchLibrary: (verbatim, request) => verbatim.library.searchPage(request),
  createMonitor: (verbatim, request) => verbatim.monitors.create(request),
  createLiveSession: (verbatim, request) => verbatim.live.create(request),
};

const wholeList: { [Op in Extract<BareStringOperation, `fetch${string}Videos` | `search${string}`>]: BareCall<Op> } = {
  fetchChannelVideos: (verbatim, request) => verbatim.transcripts.channelVideos(request).toArray(),
  fetchPlaylistVideos: (verbatim, request) => verbatim.transcripts.playlistVideos(request).toArray(),
  searchVideos: (verbatim, request) => verbatim.transcripts.searchVideos(request).toArray(),
  searchLibrary: (verbatim, request) => verbatim.library.search(request).toArray(),
};

interface SchemaRef {
  $ref?: string;
  required?: string[];
  properties?: Record<string, { type?: string }>;
}
interface OpenApiDocument {
  paths: Record<
    string,
    Record<string, { operationId?: string; requestBody?: { content?: Record<string, { schema?: SchemaRef }> } }>
  >;
  components: { schemas: Record<string, SchemaRef> };
}

/** From the published OpenAPI document: each operation whose JSON body has exactly one required field, a string, and that field. */
async function soleStringFields(): Promise<Map<string, string>> {
  const path = createRequire(import.meta.url).resolve("@verbatim/contract/openapi.v2.yaml");
  const document = parse(await readFile(path, "utf8")) as OpenApiDocument;
  const fields = new Map<string, string>();
  for (const operations of Object.values(document.paths)) {
    for (const operation of Object.values(operations)) {
      let schema = operation.requestBody?.content?.["application/json"]?.schema;
      if (schema?.$ref) schema = document.components.schemas[schema.$ref.split("/").pop() ?? ""];
      const [field, ...others] = schema?.required ?? [];
      if (field === undefined || others.length > 0 || !operation.operationId) continue;
      if (schema?.properties?.[field]?.type === "string") fields.set(operation.operationId, field);
    }
  }
  return fields;
}

const anyPage = {
  ok: true,
  request_id: "req_any",
  data: { videos: [], hits: [], next_cursor: null },
  usage: { credits_spent: 0, balance: 1, bytes: 0 },
};

let server: FaultServer;
let verbatim: Verbatim;
let fields: Map<string, string>;

beforeAll(async () => {
  server = await FaultServer.start([{ status: 200, body: anyPage }]);
  verbatim = new Verbatim({ apiKey: "vb_live_test", baseUrl: server.baseUrl, maxRetries: 0 });
  fields = await soleStringFields();
});
afterAll(async () => {
  await server?.close();
});

/** The request a call sends, as the server received it, without what differs between any two calls. */
async function sent(
  call: () => Promise<unknown>,
): Promise<Pick<ReceivedRequest, "method" | "path"> & { body: unknown }> {
  const before = server.requests.length;
  await call();
  const received = server.requests.slice(before);
  expect(received).toHaveLength(1);
  const [{ method, path, body }] = received as [ReceivedRequest];
  return { method, path, body: JSON.parse(body) };
}

describe("bare strings", () => {
  it("are taken by exactly the operations the contract gives one required string field", () => {
    expect(Object.keys(onePage).sort()).toEqual([...fields.keys()].sort());
  });

  for (const [operation, call] of Object.entries(onePage) as unknown as [string, AnyCall][]) {
    it(`${operation}: a bare string sends the same request as the object of its one field`, async () => {
      const field = fields.get(operation) ?? "";
      const value = `https://example.com/${operation}/UCxyz`;
      const bare = await sent(() => call(verbatim, value));
      const whole = await sent(() => call(verbatim, { [field]: value }));
      expect(bare).toEqual(whole);
      expect(bare.body).toEqual({ [field]: value });
    });
  }

  for (const [operation, call] of Object.entries(wholeList) as unknown as [string, AnyCall][]) {
    it(`${operation}, read as a whole list: a bare string sends the same first page`, async () => {
      const field = fields.get(operation) ?? "";
      const bare = await sent(() => call(verbatim, "UC4QobU6STFB0P71PMvOGN5A"));
      const whole = await sent(() => call(verbatim, { [field]: "UC4QobU6STFB0P71PMvOGN5A" }));
      expect(bare).toEqual(whole);
      expect(bare.body).toEqual({ [field]: "UC4QobU6STFB0P71PMvOGN5A" });
    });
  }

  it("keep the object form's other fields", async () => {
    const request = await sent(() =>
      verbatim.transcripts.channel({ channel: "@jawed", limit: 7, tab: "shorts", since_video_id: "jNQXAC9IVRw" }),
    );
    expect(request.body).toEqual({ channel: "@jawed", limit: 7, tab: "shorts", since_video_id: "jNQXAC9IVRw" });
  });
});
