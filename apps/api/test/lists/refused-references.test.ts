import type { VerbatimClient } from "@verbatim/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VideoUnavailableError } from "../../src/adapters/youtube/index.ts";
import type { TestServer } from "../support/server.ts";
import { serverStartTimeoutMs } from "../support/youtube-server.ts";
import { MemoryListSource, startListServer } from "./memory-list-source.ts";

// Channel and playlist inputs that name no such list: refused with 422 before the credit check
// and any upstream call, and charged nothing.

let server: TestServer;
let source = new MemoryListSource([30]);

beforeAll(async () => {
  server = await startListServer(() => source);
}, serverStartTimeoutMs);
afterAll(() => server?.close());

async function clientOfNewAccount(credits: number): Promise<{ accountId: string; client: VerbatimClient }> {
  const { account, key } = await server.platform.accounts.create({ plan: "pro", credits, name: "references" });
  return { accountId: account.id, client: server.clientFor(key.key) };
}

type ListEndpoint = "channel" | "playlist";

function list(client: VerbatimClient, endpoint: ListEndpoint, input: string) {
  return endpoint === "channel"
    ? client.POST("/transcripts/channel", { body: { channel: input } })
    : client.POST("/transcripts/playlist", { body: { playlist: input } });
}

const videoEndpoint = "/api/v2/transcripts/video";

const misdirected: Array<[ListEndpoint, string]> = [
  ["channel", "https://www.youtube.com/watch?v=dQw4w9WgXcQ"],
  ["channel", "https://youtu.be/dQw4w9WgXcQ"],
  ["channel", "https://www.youtube.com/shorts/dQw4w9WgXcQ"],
  ["channel", "https://www.youtube.com/live/dQw4w9WgXcQ"],
  ["channel", "https://www.youtube.com/embed/dQw4w9WgXcQ"],
  ["channel", "https://example.com/x"],
  ["channel", "https://feeds.example.org/podcast.rss"],
  ["channel", "https://podcasts.example.com/show/episode-12"],
  ["channel", "http://cdn.example.com/episode.mp3"],
  ["playlist", "https://www.youtube.com/watch?v=dQw4w9WgXcQ"],
  ["playlist", "https://youtu.be/dQw4w9WgXcQ"],
  ["playlist", "https://feeds.example.org/podcast.rss"],
  ["playlist", "https://example.com/playlist?list=PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr"],
];

const malformed: Array<[ListEndpoint, string]> = [
  ["channel", "!!"],
  ["channel", "has spaces"],
  ["channel", "https://www.youtube.com/feed/trending"],
  ["channel", "https://www.youtube.com/channel/not-an-id"],
  ["playlist", "!!"],
  ["playlist", "has spaces"],
  ["playlist", "https://www.youtube.com/feed/trending"],
  ["playlist", "https://www.youtube.com/@creativecommons"],
];

describe("422 endpoint_platform_mismatch: a video or another site's address sent to a list", () => {
  for (const [endpoint, input] of misdirected) {
    it(`refuses ${input} on /transcripts/${endpoint} with 3002 and retry_with the video endpoint, charging nothing`, async () => {
      source = new MemoryListSource([30]);
      const { accountId, client } = await clientOfNewAccount(5);
      const { error, response } = await list(client, endpoint, input);
      expect(response.status, JSON.stringify(error)).toBe(422);
      expect(error?.error).toMatchObject({
        code: "endpoint_platform_mismatch",
        number: 3002,
        retry_with: { endpoint: videoEndpoint },
      });
      expect(source.calls).toEqual([]);
      expect(await server.platform.credits.balance(accountId)).toBe(5);
      expect((await server.platform.usage.report(accountId, null)).endpoints).toEqual([]);
    });
  }
});

describe("422 invalid_input: input that names no list and no other endpoint's input", () => {
  for (const [endpoint, input] of malformed) {
    it(`refuses ${JSON.stringify(input)} on /transcripts/${endpoint} with 3005 naming what was expected`, async () => {
      source = new MemoryListSource([30]);
      const { accountId, client } = await clientOfNewAccount(5);
      const { error, response } = await list(client, endpoint, input);
      expect(response.status, JSON.stringify(error)).toBe(422);
      expect(error?.error).toMatchObject({ code: "invalid_input", number: 3005 });
      expect(error?.error.message).toMatch(endpoint === "channel" ? /@handle/ : /playlist id/);
      expect(error?.error).not.toHaveProperty("retry_with");
      expect(source.calls).toEqual([]);
      expect(await server.platform.credits.balance(accountId)).toBe(5);
      expect((await server.platform.usage.report(accountId, null)).endpoints).toEqual([]);
    });
  }
});

describe("input errors before the credit check", () => {
  const cases: Array<[ListEndpoint, string, string]> = [
    ["channel", "!!", "invalid_input"],
    ["channel", "https://www.youtube.com/watch?v=dQw4w9WgXcQ", "endpoint_platform_mismatch"],
    ["playlist", "has spaces", "invalid_input"],
    ["playlist", "https://feeds.example.org/podcast.rss", "endpoint_platform_mismatch"],
  ];
  for (const [endpoint, input, code] of cases) {
    it(`answers ${input} on /transcripts/${endpoint} of an account without credits with 422 ${code}, not 402`, async () => {
      source = new MemoryListSource([30]);
      const { accountId, client } = await clientOfNewAccount(0);
      const { error, response } = await list(client, endpoint, input);
      expect(response.status, JSON.stringify(error)).toBe(422);
      expect(error?.error.code).toBe(code);
      expect(source.calls).toEqual([]);
      expect(await server.platform.credits.balance(accountId)).toBe(0);
    });
  }

  it("still answers a well-formed channel of an account without credits with 402", async () => {
    source = new MemoryListSource([30]);
    const { client } = await clientOfNewAccount(0);
    const { error, response } = await list(client, "channel", "@creativecommons");
    expect(response.status, JSON.stringify(error)).toBe(402);
    expect(error?.error).toMatchObject({ code: "insufficient_credits", number: 2001 });
    expect(source.calls).toEqual([]);
  });
});

describe("references the list endpoints serve", () => {
  it("lists the playlist a watch URL names in its list parameter", async () => {
    source = new MemoryListSource([3]);
    const input = "https://www.youtube.com/watch?v=dQw4w9WgXcQ&list=PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr&index=3";
    const { data, error, response } = await list(server.client, "playlist", input);
    expect(response.status, JSON.stringify(error)).toBe(200);
    expect(data?.data).toMatchObject({ source: "playlist" });
    expect(source.calls.map((call) => call.target)).toEqual([{ kind: "playlist", playlist: input }]);
  });

  it("takes a bare video id on /transcripts/channel for a handle, which YouTube then resolves or not", async () => {
    source = new MemoryListSource([3]);
    const { response } = await list(server.client, "channel", "dQw4w9WgXcQ");
    expect(response.status).toBe(200);
    expect(source.calls).toHaveLength(1);
  });

  it("answers a well-formed channel YouTube does not know with 422 unavailable (4002), charging nothing", async () => {
    source = new MemoryListSource([30]).failWith(
      new VideoUnavailableError("unavailable", "Channel UCAUc4iz6edWerIjlnL8OSSw does not exist."),
    );
    const { accountId, client } = await clientOfNewAccount(5);
    const { error, response } = await list(client, "channel", "UCAUc4iz6edWerIjlnL8OSSw");
    expect(response.status, JSON.stringify(error)).toBe(422);
    expect(error?.error).toMatchObject({ code: "unavailable", number: 4002 });
    expect(await server.platform.credits.balance(accountId)).toBe(5);
  });
});
