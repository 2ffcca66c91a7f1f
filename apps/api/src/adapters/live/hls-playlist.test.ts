import { describe, expect, it } from "vitest";
import { audioRendition, PlaylistError, parsePlaylist } from "./hls-playlist.ts";

const base = "https://cdn.example.org/live/stream/index.m3u8";

describe("parsePlaylist: a live media playlist (RFC 8216)", () => {
  it("numbers segments from #EXT-X-MEDIA-SEQUENCE with their durations and absolute addresses", () => {
    const playlist = parsePlaylist(
      [
        "#EXTM3U",
        "#EXT-X-VERSION:3",
        "#EXT-X-TARGETDURATION:2",
        "#EXT-X-MEDIA-SEQUENCE:41",
        "#EXTINF:2.048,",
        "seg41.ts",
        "#EXT-X-DISCONTINUITY",
        "#EXTINF:1.984,",
        "https://edge.example.org/seg42.ts?token=a",
      ].join("\n"),
      base,
    );
    expect(playlist).toEqual({
      kind: "media",
      targetDuration: 2,
      ended: false,
      initSection: null,
      segments: [
        { sequence: 41, uri: "https://cdn.example.org/live/stream/seg41.ts", duration: 2.048, discontinuity: false },
        { sequence: 42, uri: "https://edge.example.org/seg42.ts?token=a", duration: 1.984, discontinuity: true },
      ],
    });
  });

  it("says the stream ended at #EXT-X-ENDLIST and keeps an #EXT-X-MAP initialisation section", () => {
    const playlist = parsePlaylist(
      '#EXTM3U\r\n#EXT-X-TARGETDURATION:6\r\n#EXT-X-MAP:URI="init.mp4"\r\n#EXTINF:6,\r\na.m4s\r\n#EXT-X-ENDLIST\r\n',
      base,
    );
    expect(playlist).toMatchObject({
      kind: "media",
      ended: true,
      initSection: "https://cdn.example.org/live/stream/init.mp4",
    });
  });

  it.each([
    ["no #EXTM3U", "#EXT-X-TARGETDURATION:2\n#EXTINF:2,\na.ts", /not an HLS playlist/],
    ["no target duration", "#EXTM3U\n#EXTINF:2,\na.ts", /no #EXT-X-TARGETDURATION/],
    [
      "an encrypted stream",
      '#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-KEY:METHOD=AES-128,URI="k"\n#EXTINF:2,\na.ts',
      /encrypted/,
    ],
    ["byte ranges", "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\n#EXT-X-BYTERANGE:100@0\na.ts", /BYTERANGE/],
    ["a segment without #EXTINF", "#EXTM3U\n#EXT-X-TARGETDURATION:2\na.ts", /no #EXTINF/],
    ["a file address", "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\nfile:///etc/passwd", /not an http\(s\) address/],
    ["a duration out of bounds", "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:1e9,\na.ts", /not a duration/],
    [
      "a negative media sequence",
      "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:-1\n#EXTINF:2,\na.ts",
      /whole number/,
    ],
  ])("refuses %s", (_case, text, message) => {
    expect(() => parsePlaylist(text, base)).toThrow(message);
    expect(() => parsePlaylist(text, base)).toThrow(PlaylistError);
  });

  it("refuses a playlist larger than a megabyte before reading its lines", () => {
    expect(() => parsePlaylist(`#EXTM3U\n${"#".repeat(1024 * 1024)}`, base)).toThrow(/larger than/);
  });
});

describe("audioRendition: the rendition of a master playlist read for speech", () => {
  it("takes the smallest audio-only rendition", () => {
    const master = parsePlaylist(
      [
        "#EXTM3U",
        '#EXT-X-STREAM-INF:BANDWIDTH=2500000,CODECS="avc1.4d401f,mp4a.40.2"',
        "720p.m3u8",
        '#EXT-X-STREAM-INF:BANDWIDTH=160000,CODECS="mp4a.40.2"',
        "audio_only.m3u8",
        '#EXT-X-STREAM-INF:BANDWIDTH=64000,CODECS="mp4a.40.5"',
        "audio_low.m3u8",
      ].join("\n"),
      base,
    );
    if (master.kind !== "master") throw new Error("expected a master playlist");
    expect(audioRendition(master)).toBe("https://cdn.example.org/live/stream/audio_low.m3u8");
  });

  it("takes an #EXT-X-MEDIA audio rendition, else the smallest rendition with a picture", () => {
    const withMedia = parsePlaylist(
      '#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="en",URI="en/audio.m3u8"\n#EXT-X-STREAM-INF:BANDWIDTH=900000,CODECS="avc1.4d401f,mp4a.40.2",AUDIO="a"\nv.m3u8',
      base,
    );
    const videoOnly = parsePlaylist(
      '#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=900000,CODECS="avc1,mp4a.40.2"\nbig.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=300000,CODECS="avc1,mp4a.40.2"\nsmall.m3u8',
      base,
    );
    if (withMedia.kind !== "master" || videoOnly.kind !== "master") throw new Error("expected master playlists");
    expect(audioRendition(withMedia)).toBe("https://cdn.example.org/live/stream/en/audio.m3u8");
    expect(audioRendition(videoOnly)).toBe("https://cdn.example.org/live/stream/small.m3u8");
  });
});
