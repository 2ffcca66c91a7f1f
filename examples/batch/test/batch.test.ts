import { Verbatim } from "@verbatim/sdk";
import { startVerbatim, type VerbatimService } from "@verbatim/testkit";
import { FakeYoutube } from "@verbatim/testkit/fake-youtube";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchBatch } from "../src/batch.ts";

const surfaceGo = "GJLlxj_dtq8";
const russianCivilWar = "F1xioXWb8CY";
const takenDown = "authoredNW1";
/** Attempts the service's YouTube adapter makes at one call before the row fails (its default). */
const upstreamAttempts = 3;

let youtube: FakeYoutube;
let server: VerbatimService;
beforeAll(async () => {
  youtube = await FakeYoutube.start();
  youtube
    .serveRecordedVideos()
    // Every attempt of the first batch fails; the recording answers from then on.
    .player(surfaceGo, { status: 500, body: "upstream broke" }, upstreamAttempts);
  server = await startVerbatim({ from: import.meta.url, youtube, credits: 100 });
});
afterAll(async () => {
  await server?.close();
  await youtube?.close();
});

describe("the batch example", () => {
  it("prints each row, then gets the transiently failed row on a second pass after its capped retry_after", async () => {
    const lines: string[] = [];
    const waits: number[] = [];
    const verbatim = new Verbatim({ apiKey: server.apiKey, baseUrl: server.baseUrl });
    const rows = await fetchBatch(verbatim, {
      videoIds: [surfaceGo, russianCivilWar, takenDown],
      print: (line) => lines.push(line),
      maxRetryDelayMs: 5_000,
      sleep: async (ms) => {
        waits.push(ms);
      },
    });

    expect(rows.map((row) => [row.input, row.outcome])).toEqual([
      [surfaceGo, "ok"],
      [russianCivilWar, "ok"],
      [takenDown, "error"],
    ]);
    expect(waits).toEqual([5_000]);
    expect(lines).toEqual([
      expect.stringMatching(new RegExp(`^error +${surfaceGo} +upstream_error: .* \\(retry after 30 s\\)$`)),
      expect.stringMatching(new RegExp(`^ok +${russianCivilWar} +.+ \\(\\d+ segments, captions\\)$`)),
      expect.stringMatching(new RegExp(`^error +${takenDown} +unavailable: [^(]+$`)),
      "1 credit spent, balance 99",
      "retrying 1 row in 5 s",
      expect.stringMatching(new RegExp(`^ok +${surfaceGo} +.+ \\(\\d+ segments, captions\\)$`)),
      "1 credit spent, balance 98",
    ]);
    const { data: account } = await verbatim.me();
    expect(account.credits).toBe(98);
  });
});
