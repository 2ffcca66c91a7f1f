import {
  audioFixture,
  type FakePodcastHost,
  lookupWith,
  startFakePodcastHost,
} from "@verbatim/testkit/fake-podcast-host";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closing, failure, testAudioSources } from "./helpers.ts";

let host: FakePodcastHost;
const audioSources = closing(testAudioSources);

const episode57Page = "http://adam.curry.com/html/PC205720211008Podcas-Z7qSx1X16NGXDBv7d7Nb7F4tsMjr9w.html";

function page(head: string, body = ""): string {
  return `<!doctype html><html><head>${head}</head><body>${body}</body></html>`;
}

beforeAll(async () => {
  host = await startFakePodcastHost();
  // The show page, episode 57's page and the captions now live on the fake host.
  host.serveFixture("/feeds/pc20.xml", "podcast-partytime/pc20rss.xml", "application/rss+xml", {
    replace: {
      "<link>http://podcastindex.org</link>": `<link>${host.url("/show/")}</link>`,
      [episode57Page]: host.url("/episodes/57"),
      "https://mp3s.nashownotes.com/": host.url("/nashownotes/"),
    },
  });
  host.serveFixture("/feeds/giantbomb.rss", "rss-parser/giantbomb-podcast.rss", "application/rss+xml; charset=utf-8");
  host.serveFixture("/feeds/encoding.rss", "rss-parser/encoding.rss", "text/xml");
  host.serveFixture("/feeds/heise.atom", "rss-parser/heise.atom", "application/atom+xml");
  host.serveFixture("/feeds/empty.xml", "podcast-partytime/empty.xml", "application/rss+xml");
  host.serveFile("/media/jfk.mp3", audioFixture("whisper-cpp/jfk.mp3"), "audio/mpeg");
  host.serveFile("/media/stream", audioFixture("whisper-cpp/jfk.mp3"), "audio/mpeg");
  host.serveFile("/PC20-57-2021-10-08-Final.mp3", audioFixture("whisper-cpp/jfk.mp3"), "application/octet-stream");
  const feedLink = '<link rel="alternate" type="application/rss+xml" title="Podcasting 2.0" href="/feeds/pc20.xml">';
  host.serve("/show/", { body: page(`<title>Podcasting 2.0</title>${feedLink}`), contentType: "text/html" });
  host.serve("/episodes/57", { body: page(`<title>Rebel Rubes</title>${feedLink}`), contentType: "text/html" });
  host.serve("/episodes/by-title", {
    body: page(`<meta property="og:title" content="Episode 56: Rocket in your Pocket">${feedLink}`),
    contentType: "text/html; charset=utf-8",
  });
  host.serve("/episodes/unknown", {
    body: page(`<title>Episode 99: Not Yet</title>${feedLink}`),
    contentType: "text/html",
  });
  host.serve("/episodes/no-feed", {
    body: page("<title>My Podcast - Episode 4</title>", '<audio src="/media/jfk.mp3"></audio>'),
    contentType: "text/html",
  });
  host.serve("/episodes/dead-feed", {
    body: page('<title>x</title><link rel="alternate" type="application/rss+xml" href="/feeds/missing.xml">'),
    contentType: "text/html",
  });
  host.serve("/episodes/html-feed", {
    body: page('<title>x</title><link rel="alternate" type="application/rss+xml" href="/episodes/no-feed">'),
    contentType: "text/html",
  });
  host.serve("/blog/post", {
    body: page("<title>Ten tips for sourdough</title>", "<p>Flour.</p>"),
    contentType: "text/html",
  });
  host.serve("/data.json", { body: '{"hello":"world"}', contentType: "application/json" });
  host.fail("/gone.xml", 404);
  host.fail("/broken.xml", 500);
  host.stall("/slow.xml");
});

afterAll(async () => {
  await audioSources.closeAll();
  await host.close();
});

describe("resolve: feeds", () => {
  it("resolves a feed URL to its newest episode, with show, duration, image, language and transcripts", async () => {
    const source = await audioSources().resolve(host.url("/feeds/pc20.xml"));
    expect(source).toEqual({
      platform: "podcast",
      videoId: expect.stringMatching(/^pod_[0-9a-f]{16}$/),
      url: host.url("/episodes/57"),
      title: "Episode 57: Rebel Rubes",
      channel: "Podcasting 2.0",
      declaredDurationSeconds: null,
      declaredBytes: null,
      thumbnailUrl: "https://noagendaassets.com/enc/1601061118.678_pciavatar.jpg",
      language: "en",
      mediaUrl: host.url("/nashownotes/PC20-57-2021-10-08-Final.mp3"),
      podcast: {
        show: "Podcasting 2.0",
        episode: "Episode 57: Rebel Rubes",
        publishedAt: new Date("2021-10-08T18:55:32.000Z"),
        feedUrl: host.url("/feeds/pc20.xml"),
        audioUrl: host.url("/nashownotes/PC20-57-2021-10-08-Final.mp3"),
        resolvedVia: "rss",
      },
      publisherTranscripts: [
        { url: host.url("/nashownotes/PC20-57-Captions.srt"), type: "application/srt", language: "en", rel: null },
      ],
      notes: {
        // The item's HTML show notes as text, one line per paragraph or list item.
        description: expect.stringMatching(/^Podcasting 2\.0 for October 8th 2021 Episode 57: Rebel Rubes\n/),
        keywords: expect.arrayContaining(["podcasting", "podfather"]),
        showUrl: host.url("/show/"),
        // As the real feed writes it, which the parser resolves against nothing: it is an absolute address.
        chaptersUrl: "http://34.117.70.159/http%3Amp3s.nashownotes.compc20rss.xml/PC2057",
      },
    });
  });

  it("gives the same episode the same videoId every time, and another episode another", async () => {
    const sources = audioSources();
    const first = await sources.resolve(host.url("/feeds/pc20.xml"));
    const again = await sources.resolve(host.url("/feeds/pc20.xml"), { episode: "PC2057" });
    const other = await sources.resolve(host.url("/feeds/pc20.xml"), { episode: "PC2056" });
    expect(again.videoId).toBe(first.videoId);
    expect(other.videoId).not.toBe(first.videoId);
  });

  it("picks the episode named by guid, or by enclosure URL", async () => {
    const sources = audioSources();
    expect((await sources.resolve(host.url("/feeds/pc20.xml"), { episode: "PC2056" })).title).toBe(
      "Episode 56: Rocket in your Pocket",
    );
    const byEnclosure = await sources.resolve(host.url("/feeds/pc20.xml"), {
      episode: host.url("/nashownotes/PC20-02-2020-09-11-Final.mp3"),
    });
    expect(byEnclosure.title).toBe("Episode 2: We Have Liftoff!");
  });

  it("reads the declared duration and the episode image of a large real feed (1.6 MB)", async () => {
    const source = await audioSources().resolve(host.url("/feeds/giantbomb.rss"));
    expect(source).toMatchObject({
      title: "Giant Bombcast 603: Call of Tuesday",
      channel: "Giant Bombcast",
      declaredDurationSeconds: 10_475,
      thumbnailUrl: "https://giantbomb1.cbsistatic.com/uploads/original/0/30/3132120-mspac-marquee-full.jpg?20191008",
      language: "en-US",
    });
  });

  it("answers 422 podcast_feed_not_found (3003) for an episode the feed does not list, with the feed as candidate", async () => {
    const error = await failure(audioSources().resolve(host.url("/feeds/pc20.xml"), { episode: "PC2099" }));
    expect([error.status, error.code, error.number]).toEqual([422, "podcast_feed_not_found", 3003]);
    expect(error.extra).toEqual({
      details: { reason: "episode_not_in_feed", candidates: [host.url("/feeds/pc20.xml")] },
    });
    expect(error.message).toBe(
      `The feed ${host.url("/feeds/pc20.xml")} has no episode whose guid or enclosure URL is "PC2099".`,
    );
  });

  it.each([
    ["/feeds/encoding.rss", "an RSS news feed declared ISO-8859-1"],
    ["/feeds/heise.atom", "an Atom news feed"],
    ["/feeds/empty.xml", "a podcast feed without items"],
  ])("answers 422 unsupported_platform (3001) for %s, %s: no enclosures, no podcast", async (path) => {
    const error = await failure(audioSources().resolve(host.url(path)));
    expect([error.status, error.code, error.number]).toEqual([422, "unsupported_platform", 3001]);
    expect(error.message).toBe(`${host.url(path)} is a feed without audio or video enclosures, so no podcast.`);
  });

  it("answers 422 invalid_input (3005) for a feed beyond the size limit", async () => {
    const error = await failure(audioSources({ feedMaxBytes: 100_000 }).resolve(host.url("/feeds/giantbomb.rss")));
    expect([error.status, error.code, error.number]).toEqual([422, "invalid_input", 3005]);
    expect(error.message).toBe(
      `${host.url("/feeds/giantbomb.rss")} is larger than 0.1 MiB, the most read of a feed or page.`,
    );
  });
});

describe("resolve: episode pages", () => {
  it("discovers the feed of an episode page and matches the episode by its link", async () => {
    const source = await audioSources().resolve(host.url("/episodes/57"));
    expect(source).toMatchObject({
      platform: "podcast",
      url: host.url("/episodes/57"),
      title: "Episode 57: Rebel Rubes",
      podcast: { feedUrl: host.url("/feeds/pc20.xml"), resolvedVia: "page" },
    });
  });

  it("matches the episode by the page's title", async () => {
    const source = await audioSources().resolve(host.url("/episodes/by-title"));
    expect(source.title).toBe("Episode 56: Rocket in your Pocket");
    expect(source.url).toBe(host.url("/episodes/by-title"));
  });

  it("takes the newest episode for the show's own page", async () => {
    expect((await audioSources().resolve(host.url("/show/"))).title).toBe("Episode 57: Rebel Rubes");
  });

  it("answers 3003 no_feed_link for a podcast page that links to no feed", async () => {
    const error = await failure(audioSources().resolve(host.url("/episodes/no-feed")));
    expect([error.status, error.code, error.number]).toEqual([422, "podcast_feed_not_found", 3003]);
    expect(error.extra).toEqual({ details: { reason: "no_feed_link" } });
    expect(error.message).toMatch(/looks like a podcast page but links to no RSS or Atom feed/);
  });

  it("answers 3003 episode_not_in_feed, listing the feeds found, when the page's episode is not in them", async () => {
    const error = await failure(audioSources().resolve(host.url("/episodes/unknown")));
    expect(error.code).toBe("podcast_feed_not_found");
    expect(error.extra).toEqual({
      details: { reason: "episode_not_in_feed", candidates: [host.url("/feeds/pc20.xml")] },
    });
  });

  it("answers 3003 feed_unreadable when the linked feed answers 404", async () => {
    const error = await failure(audioSources().resolve(host.url("/episodes/dead-feed")));
    expect(error.extra).toEqual({
      details: { reason: "feed_unreadable", candidates: [host.url("/feeds/missing.xml")] },
    });
  });

  it("answers 3003 not_a_feed when the linked 'feed' is an HTML page", async () => {
    const error = await failure(audioSources().resolve(host.url("/episodes/html-feed")));
    expect(error.extra).toEqual({ details: { reason: "not_a_feed", candidates: [host.url("/episodes/no-feed")] } });
  });
});

describe("resolve: media files", () => {
  it("resolves a media URL by its extension to platform file", async () => {
    const source = await audioSources().resolve(host.url("/media/jfk.mp3"));
    expect(source).toEqual({
      platform: "file",
      videoId: expect.stringMatching(/^file_[0-9a-f]{16}$/),
      url: host.url("/media/jfk.mp3"),
      title: "jfk.mp3",
      channel: null,
      declaredDurationSeconds: null,
      // Its Content-Length: the size of the served fixture.
      declaredBytes: 76_447,
      thumbnailUrl: null,
      language: null,
      mediaUrl: host.url("/media/jfk.mp3"),
      podcast: null,
      publisherTranscripts: [],
      notes: null,
    });
  });

  it("resolves a URL without extension by its audio Content-Type", async () => {
    expect((await audioSources().resolve(host.url("/media/stream"))).platform).toBe("file");
  });

  it("resolves an enclosure URL of a known podcast host as a podcast episode given directly", async () => {
    const sources = audioSources({ lookup: lookupWith({ "mp3s.nashownotes.com": "127.0.0.1" }) });
    const enclosure = host.urlOn("mp3s.nashownotes.com", "/PC20-57-2021-10-08-Final.mp3");
    const source = await sources.resolve(enclosure);
    expect(source).toMatchObject({
      platform: "podcast",
      videoId: expect.stringMatching(/^pod_[0-9a-f]{16}$/),
      title: null,
      mediaUrl: enclosure,
      podcast: {
        show: null,
        episode: null,
        publishedAt: null,
        feedUrl: null,
        audioUrl: enclosure,
        resolvedVia: "direct",
      },
    });
  });
});

describe("resolve: 422 unsupported_platform (3001) and invalid_input (3005)", () => {
  it.each([
    ["ftp://files.example/show.mp3", "ftp: addresses are not supported; send an http(s) URL."],
    ["https://vimeo.com/76979871", "vimeo.com is not a supported platform."],
    [
      "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
      "https://www.youtube.com/watch?v=dQw4w9WgXcQ is a YouTube address, not a podcast or a media file.",
    ],
  ])("refuses %s as unsupported", async (input, message) => {
    const error = await failure(audioSources().resolve(input));
    expect([error.status, error.code, error.number]).toEqual([422, "unsupported_platform", 3001]);
    expect(error.message).toBe(message);
  });

  it("refuses an HTML page that is no podcast as unsupported", async () => {
    const error = await failure(audioSources().resolve(host.url("/blog/post")));
    expect([error.code, error.number]).toEqual(["unsupported_platform", 3001]);
    expect(error.message).toBe(`${host.url("/blog/post")} is a web page that is no podcast episode.`);
  });

  it("refuses a document that is neither feed, page nor media as unsupported", async () => {
    const error = await failure(audioSources().resolve(host.url("/data.json")));
    expect(error.message).toBe(
      `${host.url("/data.json")} answered application/json: neither a podcast feed, an episode page nor a media file.`,
    );
  });

  it("refuses malformed input as invalid", async () => {
    const error = await failure(audioSources().resolve("not a url at all"));
    expect([error.status, error.code, error.number]).toEqual([422, "invalid_input", 3005]);
    expect(error.message).toBe(
      '"not a url at all" is neither a YouTube video nor the URL of a podcast, feed or media file.',
    );
  });

  it("answers invalid_input (3005) for a URL that answers 404: the client's address names nothing", async () => {
    const error = await failure(audioSources().resolve(host.url("/gone.xml")));
    expect([error.status, error.code, error.number]).toEqual([422, "invalid_input", 3005]);
    expect(error.message).toBe(`${host.url("/gone.xml")} answered HTTP 404: nothing is published at this address.`);
  });

  it("refuses a feed on 127.0.0.1 while private targets are not allowed, naming the rule", async () => {
    const error = await failure(audioSources({ allowPrivateTargets: false }).resolve(host.url("/feeds/pc20.xml")));
    expect([error.status, error.code, error.number]).toEqual([422, "invalid_input", 3005]);
    expect(error.message).toMatch(/points to 127\.0\.0\.1, a loopback address; only public addresses are fetched/);
  });
});

describe("resolve: 503 for upstream failures", () => {
  it("answers upstream_error (5001) for a 500", async () => {
    const error = await failure(audioSources().resolve(host.url("/broken.xml")));
    expect([error.status, error.code, error.number]).toEqual([503, "upstream_error", 5001]);
    expect(error.message).toBe(`127.0.0.1:${host.port} answered HTTP 500 for ${host.url("/broken.xml")}.`);
  });

  it("answers timeout (5002) for a host that never answers", async () => {
    const error = await failure(audioSources({ requestTimeoutMs: 300 }).resolve(host.url("/slow.xml")));
    expect([error.status, error.code, error.number]).toEqual([503, "timeout", 5002]);
  });
});
