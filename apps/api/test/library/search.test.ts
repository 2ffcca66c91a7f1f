import { recordedVideos } from "@verbatim/testkit/fake-youtube";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { plans } from "../../src/services/accounts/plans.ts";
import type { FullTranscript } from "../../src/services/kept/transcript-store.ts";
import { type Answer, type ErrorBodyShape, expectErrorEnvelope, send } from "../support/http.ts";
import { mediaTranscript } from "../support/media-transcripts.ts";
import { testEngine } from "../support/store.ts";
import { serverStartTimeoutMs, startYoutubeServer, type YoutubeTestServer } from "../support/youtube-server.ts";

/** A German caption track for the recorded video, authored like the English one (srv3). */
const germanTrack = `<?xml version="1.0" encoding="utf-8" ?><timedtext format="3"><body>
<p t="0" d="3000">Das Surface Go ist klein und günstig.</p>
<p t="3000" d="4000">Die Hunde liefen gestern über die Straßen der Stadt.</p>
</body></timedtext>`;

let yt: YoutubeTestServer;
let otherAccount: { id: string; key: string };

/** A transcript as the transcript service delivers it; `segments` are `[start, text]`. */
function transcript(fields: {
  video_id: string;
  platform?: FullTranscript["platform"];
  url?: string;
  language: string;
  title: string;
  channel?: string;
  segments: Array<[number, string]>;
}): FullTranscript {
  return mediaTranscript({
    video_id: fields.video_id,
    ...(fields.url === undefined ? {} : { url: fields.url }),
    ...(fields.platform === undefined ? {} : { platform: fields.platform }),
    title: fields.title,
    channel: fields.channel ?? "Example Radio",
    language: fields.language,
    segments: fields.segments.map(([start, text]) => ({ start, duration: 4, text })),
  });
}

const moonSpeech = transcript({
  video_id: "moon-speech",
  language: "en",
  title: "We choose to go to the Moon",
  channel: "Rice University",
  segments: [
    [0, "President Pitzer, Mr. Vice President, Governor, Congressman Thomas,"],
    [12.5, "we choose to go to the moon in this decade and do the other things,"],
    [17, "not because they are easy, but because they are hard."],
    [95, "The moon landing was watched by millions of people around the world."],
  ],
});

const climateShow = transcript({
  video_id: "climate-episode",
  platform: "podcast",
  url: "https://podcast.example.org/episodes/42",
  language: "en-GB",
  title: "Pricing carbon",
  segments: [
    [0, "Welcome back to the show about climate policy."],
    [31, "Today: why a carbon tax works better than a cap on emissions."],
  ],
});

const frenchRadio = transcript({
  video_id: "radio-chats",
  language: "fr",
  title: "Les chats de Paris",
  channel: "Radio Exemple",
  segments: [
    [0, "Bonjour à tous."],
    [8, "Les chats dorment toute la journée sur les toits de Paris."],
  ],
});

async function search(body: Record<string, unknown>, server = yt.server) {
  const answer = await send(server, { method: "POST", path: "/api/v2/library/search", json: body });
  expect(answer.status, answer.text).toBe(200);
  return answer.body as {
    data: {
      hits: Array<{
        video_id: string;
        title: string;
        language: string;
        snippets: Array<{ start: number; url: string | null; highlight: string }>;
      }>;
      next_cursor: string | null;
    };
    usage: { credits_spent: number };
  };
}

function issuePaths(answer: Answer): string[] {
  return (answer.body as ErrorBodyShape).error?.issues?.map((issue) => issue.path) ?? [];
}

async function hitIds(query: string, extra: Record<string, unknown> = {}): Promise<string[]> {
  return (await search({ query, ...extra })).data.hits.map((hit) => hit.video_id);
}

describe(`library search over HTTP (${testEngine})`, () => {
  beforeAll(async () => {
    yt = await startYoutubeServer({ credits: 100 });
    yt.fake.serveRecordedVideos().timedtext({ v: recordedVideos.captioned, lang: "de" }, { body: germanTrack });
    const { library, accounts } = yt.server.platform;
    const accountId = yt.server.account.id;
    for (const delivered of [moonSpeech, climateShow, frenchRadio]) await library.record(accountId, delivered);
    const other = await accounts.create({ plan: "pro", name: "other" });
    otherAccount = { id: other.account.id, key: other.key.key };
    await library.record(
      otherAccount.id,
      transcript({
        video_id: "secret-meeting",
        language: "en",
        title: "Board meeting",
        segments: [[0, "The acquisition of the moon base stays confidential."]],
      }),
    );
  }, serverStartTimeoutMs);
  afterAll(async () => yt.close());

  describe("200", () => {
    it("finds words by their stem, highlights them and links the segment's moment", async () => {
      const { data, usage } = await search({ query: "choosing decades" });
      expect(usage.credits_spent).toBe(0);
      expect(data.hits).toHaveLength(1);
      const [hit] = data.hits;
      expect(hit).toMatchObject({ video_id: "moon-speech", title: "We choose to go to the Moon", language: "en" });
      expect(hit?.snippets[0]).toEqual({
        start: 12.5,
        url: "https://media.example.org/moon-speech.mp3#t=12",
        highlight: expect.stringContaining("we <mark>choose</mark> to go to the moon in this <mark>decade</mark>"),
      });
    });

    it("gives each matching passage of a transcript its own snippet, in time order", async () => {
      const [hit] = (await search({ query: "moon" })).data.hits.filter((found) => found.video_id === "moon-speech");
      expect(hit?.snippets.map((snippet) => snippet.start)).toEqual([12.5, 95]);
      expect(hit?.snippets[1]?.highlight).toBe(
        "The <mark>moon</mark> landing was watched by millions of people around the world.",
      );
    });

    it("never shows another account's transcripts, in searches or in the list", async () => {
      expect(await hitIds("acquisition confidential")).toEqual([]);
      expect(await hitIds("moon")).toEqual(["moon-speech"]);
      const list = await send(yt.server, { method: "GET", path: "/api/v2/library?limit=100" });
      const videoIds = (list.body as { data: { entries: Array<{ video_id: string }> } }).data.entries.map(
        (entry) => entry.video_id,
      );
      expect(videoIds).not.toContain("secret-meeting");
      const others = await send(yt.server, {
        method: "POST",
        path: "/api/v2/library/search",
        json: { query: "moon" },
        authorized: false,
        headers: { authorization: `Bearer ${otherAccount.key}` },
      });
      expect((others.body as { data: { hits: Array<{ video_id: string }> } }).data.hits.map((h) => h.video_id)).toEqual(
        ["secret-meeting"],
      );
    });

    it("matches a non-English transcript in its own language: French plurals, German stems and stop words", async () => {
      expect(await hitIds("chat")).toEqual(["radio-chats"]);
      const german = await send(yt.server, {
        method: "POST",
        path: "/api/v2/transcripts/video",
        json: { video: recordedVideos.captioned, language: "de" },
      });
      expect(german.status, german.text).toBe(200);
      const { data } = await search({ query: '"die Hunde" Straße' });
      expect(data.hits.map((hit) => [hit.video_id, hit.language])).toEqual([[recordedVideos.captioned, "de"]]);
      expect(data.hits[0]?.snippets[0]).toMatchObject({
        start: 3,
        url: `https://www.youtube.com/watch?v=${recordedVideos.captioned}&t=3s`,
      });
      expect(data.hits[0]?.snippets[0]?.highlight).toContain("<mark>Hunde</mark>");
      expect(data.hits[0]?.snippets[0]?.highlight).toContain("<mark>Straßen</mark>");
    });

    it("reads a quoted phrase as words in that order", async () => {
      expect(await hitIds('"carbon tax"')).toEqual(["climate-episode"]);
      expect(await hitIds('"tax carbon"')).toEqual([]);
    });

    it("leaves out passages that mention a word after a minus", async () => {
      const [moon] = (await search({ query: "moon -landing" })).data.hits;
      expect(moon?.video_id).toBe("moon-speech");
      expect(moon?.snippets.map((snippet) => snippet.start)).toEqual([12.5]);
      expect(await hitIds("carbon -emissions")).toEqual([]);
    });

    it("takes either word around `or`, across transcripts of different languages", async () => {
      expect((await hitIds("chats or pricing or landing")).sort()).toEqual(["moon-speech", "radio-chats"]);
      expect(await hitIds("dorment or emissions")).toEqual(["radio-chats", "climate-episode"]);
    });

    it("filters by platform and by channel", async () => {
      expect(await hitIds("moon or climate or chats", { platform: "podcast" })).toEqual(["climate-episode"]);
      expect(await hitIds("moon or climate or chats", { channel: "Radio Exemple" })).toEqual(["radio-chats"]);
    });

    it("counts both operations against the request allowance, free", async () => {
      const before = await yt.balance();
      for (const request of [
        { method: "GET", path: "/api/v2/library" },
        { method: "POST", path: "/api/v2/library/search", json: { query: "moon" } },
      ]) {
        const answer = await send(yt.server, request);
        expect(answer.status, answer.text).toBe(200);
        expect(answer.headers.get("x-ratelimit-limit")).toBe(String(plans.pro.requestsPerMinute));
      }
      expect(await yt.balance()).toBe(before);
    });

    it("escapes the transcript's markup in highlights", async () => {
      await yt.server.platform.library.record(
        yt.server.account.id,
        transcript({
          video_id: "markup",
          language: "en",
          title: "Markup",
          segments: [[0, "Type <b>bold</b> & move on."]],
        }),
      );
      const { data } = await search({ query: "bold" });
      expect(data.hits[0]?.snippets[0]?.highlight).toBe("Type &lt;b&gt;<mark>bold</mark>&lt;/b&gt; &amp; move on.");
    });
  });

  describe("200 pages", () => {
    it("pages hits newest first with cursors bound to the query", async () => {
      const accountId = yt.server.account.id;
      const series = Array.from({ length: 7 }, (_, index) =>
        transcript({
          video_id: `lecture-${index}`,
          language: "en",
          title: `Lecture ${index}`,
          segments: [[index, `Lecture ${index} on thermodynamics and entropy.`]],
        }),
      );
      for (const lecture of series) await yt.server.platform.library.record(accountId, lecture);
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const { data } = await search({ query: "entropy", limit: 3, ...(cursor ? { cursor } : {}) });
        expect(data.hits.length).toBeLessThanOrEqual(3);
        seen.push(...data.hits.map((hit) => hit.video_id));
        cursor = data.next_cursor ?? undefined;
      } while (cursor);
      expect(seen).toEqual(series.map((lecture) => lecture.video_id).reverse());

      const first = await search({ query: "entropy", limit: 3 });
      const reused = await send(yt.server, {
        method: "POST",
        path: "/api/v2/library/search",
        json: { query: "thermodynamics", limit: 3, cursor: first.data.next_cursor },
      });
      expectErrorEnvelope(reused, 400, "invalid_cursor");
    });

    it("lists the library newest first, page by page", async () => {
      const pages: string[][] = [];
      let cursor = "";
      do {
        const answer = await send(yt.server, {
          method: "GET",
          path: `/api/v2/library?limit=4${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
        });
        expect(answer.status, answer.text).toBe(200);
        const { data } = answer.body as { data: { entries: Array<{ video_id: string }>; next_cursor: string | null } };
        pages.push(data.entries.map((entry) => entry.video_id));
        cursor = data.next_cursor ?? "";
      } while (cursor);
      const all = pages.flat();
      expect(pages.slice(0, -1).every((page) => page.length === 4)).toBe(true);
      expect(all.slice(0, 2)).toEqual(["lecture-6", "lecture-5"]);
      expect(all.at(-1)).toBe("moon-speech");
      expect(new Set(all).size).toBe(all.length);
    });
  });

  describe("400", () => {
    it.each([
      [{ query: "" }, "/body/query"],
      [{ query: "x".repeat(501) }, "/body/query"],
      [{ query: "moon", limit: 0 }, "/body/limit"],
      [{ query: "moon", limit: 51 }, "/body/limit"],
      [{ query: "moon", platform: "Vimeo.com" }, "/body/platform"],
      [{ query: "moon", platform: "p".repeat(65) }, "/body/platform"],
      [{ query: "moon", cursor: "c".repeat(257) }, "/body/cursor"],
    ])("refuses %j as invalid_request at %s", async (body, path) => {
      const answer = await send(yt.server, { method: "POST", path: "/api/v2/library/search", json: body });
      expectErrorEnvelope(answer, 400, "invalid_request");
      expect(issuePaths(answer)).toContain(path);
    });

    it("refuses a list limit over 100", async () => {
      const answer = await send(yt.server, { method: "GET", path: "/api/v2/library?limit=101" });
      expectErrorEnvelope(answer, 400, "invalid_request");
      expect(issuePaths(answer)).toContain("/query/limit");
    });

    it("refuses an altered cursor, and another account's, as invalid_cursor", async () => {
      const altered = await send(yt.server, {
        method: "GET",
        path: "/api/v2/library?cursor=l1.1795000000000000.1.1795086400.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
      });
      expectErrorEnvelope(altered, 400, "invalid_cursor");
      const page = await send(yt.server, { method: "GET", path: "/api/v2/library?limit=1" });
      const cursor = (page.body as { data: { next_cursor: string } }).data.next_cursor;
      const stolen = await send(yt.server, {
        method: "GET",
        path: `/api/v2/library?cursor=${encodeURIComponent(cursor)}`,
        authorized: false,
        headers: { authorization: `Bearer ${otherAccount.key}` },
      });
      expectErrorEnvelope(stolen, 400, "invalid_cursor");
    });
  });

  describe("401", () => {
    it("refuses a request without a key", async () => {
      const answer = await send(yt.server, { method: "GET", path: "/api/v2/library", authorized: false });
      expectErrorEnvelope(answer, 401, "unauthorized");
    });
  });
});
