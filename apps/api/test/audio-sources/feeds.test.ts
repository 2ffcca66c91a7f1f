import { readFileSync } from "node:fs";
import { podcastFixture } from "@verbatim/testkit/fake-podcast-host";
import { describe, expect, it } from "vitest";
import {
  feedFormatOf,
  findEpisode,
  newestEpisode,
  type ParsedFeed,
  parseFeedText,
  rankTranscripts,
} from "../../src/adapters/audio-sources/feeds.ts";
import { decodeText } from "../../src/adapters/audio-sources/text-decoding.ts";

function feedOf(fixture: string, contentType: string | null = null): ParsedFeed {
  const text = decodeText(readFileSync(podcastFixture(fixture)), contentType);
  const feed = parseFeedText(text, new URL(`https://feeds.example/${fixture}`));
  if (!feed) throw new Error(`${fixture} did not parse`);
  return feed;
}

describe("parseFeedText: every copied real feed", () => {
  it.each([
    [
      "podcast-partytime/pc20rss.xml",
      "Podcasting 2.0",
      "en",
      56,
      "Episode 57: Rebel Rubes",
      "https://mp3s.nashownotes.com/PC20-57-2021-10-08-Final.mp3",
    ],
    [
      "podcast-partytime/real-world/no-agenda.xml",
      "No Agenda",
      "en",
      29,
      '1393: "Space Wake"',
      "https://mp3s.nashownotes.com/NA-1393-2021-10-24-Final.mp3",
    ],
    [
      "podcast-partytime/real-world/themnshow.xml",
      "The Mike Neumann Show",
      "en-US",
      54,
      "Social Media",
      "https://op3.dev/e,pg=7a2d292c-8656-5fcf-88d2-31b10e54d7c7/mikeneumann.show/assets/static/themnshow054-20240914-FINAL.mp3",
    ],
    [
      "podcast-partytime/real-world/1865.xml",
      "1865",
      "en",
      61,
      "Introducing 'History Daily' From Host Lindsay Graham",
      "https://dts.podtrac.com/redirect.mp3/chrt.fm/track/9EE2G/pdst.fm/e/rss.art19.com/episodes/7684b7cb-0de9-4f59-b657-08cf6c57a80e.mp3?rss_browser=BAhJIgtDaHJvbWUGOgZFVA%3D%3D--d05363d83ce333c74f32188013892b2863ad051c",
    ],
    [
      "podcast-partytime/real-world/animated-no-agenda.xml",
      "Animated No Agenda",
      null,
      20,
      "Animated No Agenda - It's Probably an Inside Job [EP 100!]",
      "https://noagendatube.com/static/webseed/301929e6-a83e-45ad-8901-e513ea1ab81e-1080.mp4",
    ],
    [
      "podcast-partytime/real-world/changing-the-tide.xml",
      "Changing the Tide",
      "en",
      15,
      "0.00000015: Andy Schroder, Distributed Charge + A0",
      "https://t.subsplash.com/r/aHR0cHM6Ly9jZG4uc3Vic3BsYXNoLmNvbS9hdWRpb3MvR0JNOTlTLzYyNDE4MDRhLWE0MTktNGI2OS1iOGQwLTUwMjY3NmJkNTQ5NC9hdWRpby5tcDM.mp3?k=GBM99S&s=3&sapid=33xnjwg",
    ],
    // One item has no guid: it is kept, and chosen by its enclosure URL.
    [
      "podcast-partytime/real-world/dk-podcast.xml",
      "Langsam gesprochene Nachrichten | Audios | DW Deutsch lernen",
      "de",
      59,
      "18.03.2022 – Langsam gesprochene Nachrichten",
      "https://radiodownloaddw-a.akamaihd.net/Events/podcasts/de/2288_DKpodcast_lgn_de/5F52703B_2-podcast-2288-61170826.mp3",
    ],
    [
      "podcast-partytime/real-world/homegrown-hits.xml",
      "Homegrown Hits",
      "en",
      4,
      "Homegrown Hits - Episode 03",
      "https://feed.homegrownhits.xyz/assets/episodes/episode-03.mp3",
    ],
    [
      "podcast-partytime/real-world/sentimental-garbage.xml",
      "Sentimental Garbage",
      "en",
      138,
      "Barbie with Jen Cownie",
      "https://sphinx.acast.com/p/acast/s/sentimentalgarbage/e/64ce024b17496000117178ca/media.mp3",
    ],
    [
      "podcast-partytime/example.xml",
      "Podcasting 2.0 Namespace Example",
      "en-US",
      3,
      "Episode 3 - The Future",
      "https://mp3s.nashownotes.com/PC20-17-2020-12-25-Final.mp3",
    ],
    [
      "rss-parser/giantbomb-podcast.rss",
      "Giant Bombcast",
      "en-US",
      730,
      "Giant Bombcast 603: Call of Tuesday",
      "https://dts.podtrac.com/redirect.mp3/www.giantbomb.com/podcasts/download/2823/603__Call_of_Tuesday-10-01-2019-6277737276.mp3",
    ],
    [
      "rss-parser/itunes-missing-image.rss",
      "Taverncast - Happy Hour in Your Head - Since 2005",
      "en-US",
      131,
      "Taverncast 62 - Temporal Anomaly",
      "http://www.podtrac.com/pts/redirect.mp3?http://www.taverncast.com/shows/taverncast-62.mp3",
    ],
    [
      "rss-parser/itunes-keywords-astext.rss",
      "Endorphine für Delfine",
      "de",
      32,
      "Die mit Alice Merton und der Wespen-Taschen Psychologie",
      "https://avdlswr-a.akamaihd.net/dasding/podcasts/endorphine-fuer-delfine/1320514.m.mp3",
    ],
    [
      "rss-parser/item-itunes-episodeType.rss",
      "Baywatch Berlin",
      "de",
      1,
      "Trailer",
      "https://cdn.podigee.com/media/podcast_16544_baywatch_berlin_episode_1_trailer.mp3?v=1574079359&source=feed",
    ],
    [
      "rss-parser/narro.rss",
      "foobar on Narro",
      "en",
      1,
      "FAQ for Narro",
      "https://s3.amazonaws.com/nareta-articles/audio/54d046c293f79c0300000003/7e2d2b00-a945-441a-f49b-063786a319a4.mp3",
    ],
  ])("%s: %s, %s, %i episodes, newest %s", (fixture, title, language, count, newestTitle, newestEnclosure) => {
    const feed = feedOf(fixture);
    expect(feed.format).toBe("rss");
    expect(feed.title).toBe(title);
    expect(feed.language).toBe(language);
    expect(feed.episodes).toHaveLength(count);
    const newest = newestEpisode(feed);
    expect(newest?.title).toBe(newestTitle);
    expect(newest?.enclosureUrl).toBe(newestEnclosure);
  });

  it("reads declared durations in seconds and in clock form", () => {
    expect(newestEpisode(feedOf("rss-parser/giantbomb-podcast.rss"))?.durationSeconds).toBe(10_475);
    expect(newestEpisode(feedOf("podcast-partytime/real-world/changing-the-tide.xml"))?.durationSeconds).toBe(4385);
    expect(newestEpisode(feedOf("podcast-partytime/real-world/dk-podcast.xml"))?.durationSeconds).toBe(420);
    // No itunes:duration at all: unknown, not 0.
    expect(newestEpisode(feedOf("podcast-partytime/pc20rss.xml"))?.durationSeconds).toBeNull();
  });

  it("takes the episode image, else the show image, and ignores a malformed image tag", () => {
    expect(newestEpisode(feedOf("rss-parser/narro.rss"))?.imageUrl).toBe("http://example.com/someImage.jpg");
    const pc20 = feedOf("podcast-partytime/pc20rss.xml");
    expect(newestEpisode(pc20)?.imageUrl).toBe("https://noagendaassets.com/enc/1601061118.678_pciavatar.jpg");
    // Taverncast's channel <itunes:image> holds `href=http://…">` as text; the <image><url> is used.
    expect(feedOf("rss-parser/itunes-missing-image.rss").imageUrl).not.toMatch(/href=/);
  });

  it("lists podcast:transcript links with their language, the feed's when the tag has none", () => {
    const newest = newestEpisode(feedOf("podcast-partytime/real-world/themnshow.xml"));
    expect(newest?.transcripts[0]).toEqual({
      url: "https://mikeneumann.show/assets/static/themnshow054-20240914-DRAFT-transcript.srt",
      type: "application/srt",
      language: "en",
      rel: "captions",
    });
    expect(newestEpisode(feedOf("podcast-partytime/pc20rss.xml"))?.transcripts).toEqual([
      { url: "https://mp3s.nashownotes.com/PC20-57-Captions.srt", type: "application/srt", language: "en", rel: null },
    ]);
  });

  it("decodes a feed declared ISO-8859-1 by its XML declaration", () => {
    const feed = feedOf("rss-parser/encoding.rss", "text/xml");
    expect(feed.title).toBe("Jornal de Notícias - Últimas Notícias");
    expect(feed.language).toBe("pt-PT");
    // A news feed: no enclosures, so no episodes.
    expect(feed.episodes).toHaveLength(0);
  });

  it("reads Atom, which podcast-partytime cannot: heise's news feed has no enclosures", () => {
    const feed = feedOf("rss-parser/heise.atom");
    expect(feed.format).toBe("atom");
    expect(feed.title).toBe("heise developer neueste Meldungen");
    expect(feed.episodes).toHaveLength(0);
  });

  it("reads the enclosures of an Atom podcast", () => {
    const atom = `<?xml version="1.0"?>
      <feed xmlns="http://www.w3.org/2005/Atom" xml:lang="en-gb"><title>Atom Show</title>
        <entry><id>urn:ep:1</id><title>One</title><published>2024-01-01T00:00:00Z</published>
          <link rel="alternate" href="https://show.example/1"/><link rel="enclosure" type="audio/mpeg" href="/media/1.mp3"/></entry>
        <entry><id>urn:ep:2</id><title>Two</title><published>2024-02-01T00:00:00Z</published>
          <link rel="enclosure" type="audio/mpeg" href="https://cdn.example/2.mp3"/></entry>
      </feed>`;
    const feed = parseFeedText(atom, new URL("https://show.example/feed.atom"));
    expect(feed?.language).toBe("en-GB");
    expect(feed?.episodes.map((episode) => episode.enclosureUrl)).toEqual([
      "https://show.example/media/1.mp3",
      "https://cdn.example/2.mp3",
    ]);
    expect(feed && newestEpisode(feed)?.guid).toBe("urn:ep:2");
  });

  it("parses a channel without items to no episodes", () => {
    expect(feedOf("podcast-partytime/empty.xml").episodes).toEqual([]);
  });
});

describe("feedFormatOf", () => {
  it.each([
    ['<?xml version="1.0"?>\n<!-- comment -->\n<rss version="2.0">', "rss"],
    ['\uFEFF<?xml version="1.0"?><?xml-stylesheet href="s.xsl"?><feed xmlns="http://www.w3.org/2005/Atom">', "atom"],
    ["<!DOCTYPE html><html>", null],
    ['{"version":"1.0.0"}', null],
  ])("sniffs %j as %s", (text, format) => {
    expect(feedFormatOf(text)).toBe(format);
  });
});

describe("episode selection", () => {
  const feed = feedOf("podcast-partytime/pc20rss.xml");

  it("finds an episode by guid", () => {
    expect(findEpisode(feed, "PC2056")?.title).toBe("Episode 56: Rocket in your Pocket");
  });

  it("finds an episode by enclosure URL", () => {
    expect(findEpisode(feed, "https://mp3s.nashownotes.com/PC20-02-2020-09-11-Final.mp3")?.title).toBe(
      "Episode 2: We Have Liftoff!",
    );
  });

  it("finds the guid-less episode of the DW feed by its enclosure URL", () => {
    const dw = feedOf("podcast-partytime/real-world/dk-podcast.xml");
    const guidless = dw.episodes.find((episode) => episode.guid === null);
    expect(guidless).toBeDefined();
    expect(findEpisode(dw, guidless?.enclosureUrl ?? "")).toBe(guidless);
  });

  it("picks the newest by publication date, wherever it stands in the document", () => {
    const reordered: ParsedFeed = { ...feed, episodes: [...feed.episodes].reverse() };
    expect(newestEpisode(reordered)?.guid).toBe("PC2057");
  });

  it("finds nothing for an unknown guid", () => {
    expect(findEpisode(feed, "PC2099")).toBeUndefined();
  });
});

describe("rankTranscripts", () => {
  const link = (type: string, language: string | null, url = "https://t.example/x") => ({
    url,
    type,
    language,
    rel: null,
  });

  it("puts timed formats first (JSON, VTT, SRT), then HTML, then text, the episode's language before others", () => {
    const ranked = rankTranscripts(
      [
        link("text/plain", "en"),
        link("text/html", "en"),
        link("application/x-subrip", "en"),
        link("text/vtt", "es"),
        link("text/vtt", "en"),
        link("application/json", "en"),
      ],
      "en-US",
    );
    expect(ranked.map((entry) => `${entry.type} ${entry.language}`)).toEqual([
      "application/json en",
      "text/vtt en",
      "application/x-subrip en",
      "text/html en",
      "text/plain en",
      "text/vtt es",
    ]);
  });

  it("reads an undeclared type from the file extension", () => {
    const ranked = rankTranscripts(
      [link("unknown", null, "https://t.example/a.txt"), link("unknown", null, "https://t.example/a.vtt")],
      null,
    );
    expect(ranked[0]?.url).toBe("https://t.example/a.vtt");
  });
});
