import { Verbatim } from "@verbatim/sdk";
import { startVerbatim, type VerbatimService } from "@verbatim/testkit";
import { audioFixture, type FakePodcastHost, startFakePodcastHost } from "@verbatim/testkit/fake-podcast-host";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { transcribeEpisode } from "../src/podcast-job.ts";

/** The authored feed of packages/testkit/fixtures/podcasts/verbatim: its plain episode has no transcript, only the JFK recording. */
const feedPath = "/feeds/transcript-formats.xml";
const plainEpisode = "verbatim-ep-plain";

let host: FakePodcastHost;
let server: VerbatimService;
beforeAll(async () => {
  host = await startFakePodcastHost();
  host.serveFixture(feedPath, "verbatim/transcript-formats.xml", "application/rss+xml; charset=utf-8", {
    replace: { "https://podcasts.example/": host.url("/") },
  });
  host.serveFile("/media/ep-plain.mp3", audioFixture("whisper-cpp/jfk.mp3"), "audio/mpeg");
  // Inline recognition off: every episode without a publisher transcript becomes a job.
  server = await startVerbatim({ from: import.meta.url, credits: 10, env: { VERBATIM_INLINE_AUDIO_SECONDS: "0" } });
});
afterAll(async () => {
  await server?.close();
  await host?.close();
});

describe("the podcast-job example", () => {
  it("starts a job for a feed's episode, prints its progress until it completes, then its recognised text", async () => {
    const lines: string[] = [];
    const verbatim = new Verbatim({ apiKey: server.apiKey, baseUrl: server.baseUrl });
    const text = await transcribeEpisode(verbatim, {
      source: host.url(feedPath),
      episode: plainEpisode,
      print: (line) => lines.push(line),
      pollInterval: 200,
    });

    expect(text.toLowerCase()).toContain("what you can do for your country");
    expect(lines[0]).toMatch(/^job job_[0-9A-Z]{26} is transcribing pod_/);
    const progress = lines.slice(1, -2);
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.slice(0, -1).every((line) => /^processing( \d+%)?$/.test(line))).toBe(true);
    expect(progress.at(-1)).toBe("completed 100%");
    expect(lines.at(-2)).toBe("Ask Not (no transcript): 11 s of audio, 1 credit spent");
    expect(lines.at(-1)).toBe(text);
    const { data: account } = await verbatim.me();
    expect(account.credits).toBe(9);
  });
});
