import { Verbatim } from "@verbatim/sdk";
import { startVerbatim, type VerbatimService } from "@verbatim/testkit";
import { FakeYoutube } from "@verbatim/testkit/fake-youtube";
import { registerRecordedLists } from "@verbatim/testkit/youtube-lists";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { printChannelPages, printChannelVideos } from "../src/paginate-channel.ts";

// The recorded Creative Commons channel: 62 videos over three YouTube pages.
let youtube: FakeYoutube;
let server: VerbatimService;
let channelUrl: string;
let videoIds: string[];
let verbatim: Verbatim;
beforeAll(async () => {
  youtube = await FakeYoutube.start();
  const { target, videoIds: recordedIds } = registerRecordedLists(youtube).channel;
  if (target.kind !== "channel") throw new Error("the recorded channel is not a channel");
  channelUrl = target.channel;
  videoIds = recordedIds;
  server = await startVerbatim({ from: import.meta.url, youtube, credits: 100 });
  verbatim = new Verbatim({ apiKey: server.apiKey, baseUrl: server.baseUrl });
});
afterAll(async () => {
  await server?.close();
  await youtube?.close();
});

/** The account's balance, as `GET /me` reports it (free of charge). */
async function balance(): Promise<number> {
  const { data: account } = await verbatim.me();
  return account.credits ?? 0;
}

async function spent(run: () => Promise<unknown>): Promise<number> {
  const before = await balance();
  await run();
  return before - (await balance());
}

describe("the paginate-channel example", () => {
  it("prints the first 20 videos in the channel's order, fetching and paying for 3 pages of 7 and no more", async () => {
    const lines: string[] = [];
    const credits = await spent(() =>
      printChannelVideos(verbatim, {
        channel: channelUrl,
        pageSize: 7,
        max: 20,
        print: (line) => lines.push(line),
      }),
    );
    expect(lines).toHaveLength(20);
    expect(lines.map((line) => line.split(/\s+/)[2])).toEqual(videoIds.slice(0, 20));
    expect(lines[0]).toMatch(/^ {3}1 {2}\S{11} {2}\S/);
    expect(credits).toBe(3);
  });

  it("prints every page of the channel with its cost, the last one saying so", async () => {
    const lines: string[] = [];
    const pages = await printChannelPages(verbatim, {
      channel: channelUrl,
      pageSize: 25,
      print: (line) => lines.push(line),
    });
    expect(pages).toBe(3);
    expect(lines).toEqual([
      expect.stringMatching(/^page 1: 25 videos, 1 credit spent, balance \d+, more to come$/),
      expect.stringMatching(/^page 2: 25 videos, 1 credit spent, balance \d+, more to come$/),
      expect.stringMatching(/^page 3: 12 videos, 1 credit spent, balance \d+, the last page$/),
    ]);
  });

  it("stops after maxPages", async () => {
    const lines: string[] = [];
    const credits = await spent(() =>
      printChannelPages(verbatim, {
        channel: channelUrl,
        pageSize: 10,
        maxPages: 2,
        print: (line) => lines.push(line),
      }),
    );
    expect(lines).toHaveLength(2);
    expect(credits).toBe(2);
  });
});
