import { type AudioServer, startAudioServer } from "@verbatim/api/test/audio/harness";
import { audioFixture } from "@verbatim/api/test/support/fake-podcast-host";
import { Verbatim } from "@verbatim/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { transcribeEpisode } from "../src/podcast-job.ts";

/** The authored feed of apps/api/test/fixtures/podcasts/verbatim: its plain episode has no transcript, only the JFK recording. */
const feedPath = "/feeds/transcript-formats.xml";
const plainEpisode = "verbatim-ep-plain";

let server: AudioServer;
beforeAll(async () => {
  // Inline recognition off: every episode without a publisher transcript becomes a job.
  server = await startAudioServer({ inlineAudioSeconds: 0, credits: 10 });
  server.host.serveFixture(feedPath, "verbatim/transcript-formats.xml", "application/rss+xml; charset=utf-8", {
    replace: { "https://podcasts.example/": server.host.url("/") },
  });
  server.host.serveFile("/media/ep-plain.mp3", audioFixture("whisper-cpp/jfk.mp3"), "audio/mpeg");
});
afterAll(() => server?.close());

describe("the podcast-job example", () => {
  it("starts a job for a feed's episode, prints its progress until it completes, then its recognised text", async () => {
    const lines: string[] = [];
    const verbatim = new Verbatim({ apiKey: server.key.key, baseUrl: server.baseUrl });
    const text = await transcribeEpisode(verbatim, {
      source: server.host.url(feedPath),
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
    expect(await server.platform.credits.balance(server.account.id)).toBe(9);
  });
});
