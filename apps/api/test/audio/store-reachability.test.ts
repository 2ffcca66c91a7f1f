import { audioFixture } from "@verbatim/testkit/fake-podcast-host";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectErrorEnvelope } from "../support/http.ts";
import type { TestServer } from "../support/server.ts";
import { type AudioServer, startAudioServer } from "./harness.ts";
import { fetchTranscript, type Loose } from "./requests.ts";

const jfkPhrase = "what you can do for your country";

/** A one-episode feed whose enclosure is `enclosureUrl`: another account's feed may list any address. */
function feedListing(enclosureUrl: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>Relisted</title><link>https://relisted.example/</link>
<item><title>Someone else's episode</title><guid isPermaLink="false">relisted-1</guid>
<pubDate>Mon, 05 Oct 2020 04:30:00 GMT</pubDate>
<enclosure url="${enclosureUrl.replaceAll("&", "&amp;")}" length="352078" type="audio/wav"/></item>
</channel></rss>`;
}

describe("a stored transcript of media is served only to a request that can still reach the media", () => {
  let server: AudioServer;
  let otherAccount: TestServer;
  const privatePath = "/private/episode.wav";
  const capabilityUrl = () => server.host.url(`${privatePath}?token=secret-1`);

  beforeAll(async () => {
    server = await startAudioServer({ workers: 0 });
    server.host.serveFile(privatePath, audioFixture("whisper-cpp/jfk.wav"), "audio/wav");
    server.host.serve("/feeds/relisted.xml", {
      body: feedListing(capabilityUrl()),
      contentType: "application/rss+xml",
    });
    const { key } = await server.platform.accounts.create({ plan: "pro", name: "relisting account" });
    otherAccount = { ...server, key: { ...server.key, key: key.key } };
  });
  afterAll(() => server?.close());

  it("serves the store to another account when the media still answers, after one HEAD and no download", async () => {
    const first = await fetchTranscript(server, { video: capabilityUrl(), timestamps: false });
    expect(first.status, first.text).toBe(200);
    expect((first.body as Loose).data.text).toContain(jfkPhrase);

    const mediaRequests = () => server.host.requests.filter((request) => request.path.startsWith(privatePath));
    const downloadsBefore = mediaRequests().filter((request) => request.method === "GET").length;
    const relisted = await fetchTranscript(otherAccount, {
      video: server.host.url("/feeds/relisted.xml"),
      timestamps: false,
    });
    expect(relisted.status, relisted.text).toBe(200);
    expect((relisted.body as Loose).data.text).toContain(jfkPhrase);
    const after = mediaRequests();
    expect(after.filter((request) => request.method === "GET")).toHaveLength(downloadsBefore);
    expect(after.at(-1)?.method).toBe("HEAD");
  });

  it("does not serve it once the media refuses the asker: the request fails as its own fetch does", async () => {
    server.host.fail(privatePath, 403);
    const relisted = await fetchTranscript(otherAccount, {
      video: server.host.url("/feeds/relisted.xml"),
      timestamps: false,
    });
    expectErrorEnvelope(relisted, 503, "upstream_error");
    expect(relisted.text).not.toContain(jfkPhrase);
  });
});
