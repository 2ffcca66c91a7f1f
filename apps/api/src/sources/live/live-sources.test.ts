import { readFileSync } from "node:fs";
import { platformFixture } from "@verbatim/testkit/platform-double";
import { describe, expect, it } from "vitest";
import type { PublicFetch } from "../../adapters/net/public-fetch.ts";
import type { EgressCall } from "../egress/egress-guard.ts";
import { SourceError } from "../source-error.ts";
import type { InfoDict } from "../ytdlp/info-dict.ts";
import { createLiveSources } from "./index.ts";
import { liveResolutionOfInfoDict } from "./live-info-dict.ts";
import { YtdlpLiveStreams } from "./ytdlp-live.ts";

function infoDict(name: string): InfoDict {
  return JSON.parse(readFileSync(platformFixture(`live/info/${name}.json`), "utf8")) as InfoDict;
}

describe("liveResolutionOfInfoDict (authored info dicts of yt-dlp 2026.8.19, fixtures/platforms/live)", () => {
  it("reads a YouTube video live now as the playlist of its smallest audio-only format, 233", () => {
    expect(
      liveResolutionOfInfoDict("youtube", "https://www.youtube.com/watch?v=LiVeHeArInG", infoDict("youtube-live")),
    ).toEqual({
      state: "live",
      reading: "hls",
      address:
        "https://manifest.googlevideo.com/api/manifest/hls_playlist/expire/1795021600/id/LiVeHeArInG.1/itag/233/source/yt_live_broadcast/playlist/index.m3u8",
      details: {
        platform: "youtube",
        videoId: "LiVeHeArInG",
        title: "Senate hearing on public broadcasting, live",
        channel: "Verbatim Tests",
      },
    });
  });

  it("reads a Twitch channel live now as its audio_only playlist, under the channel's login", () => {
    expect(
      liveResolutionOfInfoDict("twitch", "https://www.twitch.tv/verbatimtests", infoDict("twitch-live")),
    ).toMatchObject({
      state: "live",
      address: "https://video-weaver.example.hls.ttvnw.net/v1/playlist/CgAudio.m3u8",
      details: { platform: "twitch", videoId: "verbatimtests", title: "Verbatim Tests (live)" },
    });
  });

  it("reads a scheduled event as waiting until its scheduled start", () => {
    expect(
      liveResolutionOfInfoDict("youtube", "https://www.youtube.com/watch?v=UpCoMiNgEvT", infoDict("youtube-upcoming")),
    ).toMatchObject({
      state: "waiting",
      startsAt: new Date(1795003600 * 1000),
    });
  });

  it("reads a past broadcast as over", () => {
    expect(
      liveResolutionOfInfoDict("youtube", "https://www.youtube.com/watch?v=PaStStReAmX", infoDict("youtube-was-live"))
        .state,
    ).toBe("over");
  });

  it("refuses a recorded upload as not_live: the video endpoint transcribes it", () => {
    const refusal = (() => {
      try {
        return liveResolutionOfInfoDict(
          "youtube",
          "https://www.youtube.com/watch?v=jNQXAC9IVRw",
          infoDict("youtube-video"),
        );
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(SourceError);
    expect(refusal).toMatchObject({ kind: "not_live" });
  });

  it("refuses a live item with no HLS format with sound as no_audio_stream", () => {
    const info = {
      ...infoDict("youtube-live"),
      formats: [
        { format_id: "95", protocol: "m3u8_native", url: "https://x.example/a.m3u8", acodec: "none", vcodec: "avc1" },
      ],
    };
    expect(() => liveResolutionOfInfoDict("youtube", "https://www.youtube.com/watch?v=LiVeHeArInG", info)).toThrow(
      expect.objectContaining({ kind: "no_audio_stream" }),
    );
  });
});

/** An egress guard call that records nothing: the fake engine below makes no connection. */
const egress = {
  openCall: (): EgressCall => ({
    id: "call",
    proxyUrl: "http://call-test:secret@127.0.0.1:9",
    bytes: () => 0,
    tooLarge: false,
    timedOut: false,
    refusedTargets: [],
    unreachableTargets: [],
    close: () => {},
  }),
};

describe("YtdlpLiveStreams", () => {
  const streams = new YtdlpLiveStreams({ engine: null, absentAdvice: "Install yt-dlp.", egress });

  it.each([
    [
      "https://www.youtube.com/watch?v=LiVeHeArInG",
      "youtube",
      "https://www.youtube.com/watch?v=LiVeHeArInG",
      "LiVeHeArInG",
    ],
    ["https://youtu.be/LiVeHeArInG", "youtube", "https://www.youtube.com/watch?v=LiVeHeArInG", "LiVeHeArInG"],
    [
      "https://www.youtube.com/live/LiVeHeArInG?si=x",
      "youtube",
      "https://www.youtube.com/watch?v=LiVeHeArInG",
      "LiVeHeArInG",
    ],
    ["https://www.twitch.tv/VerbatimTests", "twitch", "https://www.twitch.tv/verbatimtests", null],
    ["https://m.twitch.tv/verbatimtests/", "twitch", "https://www.twitch.tv/verbatimtests", null],
  ])("takes %s as a %s broadcast, recorded as item %s", (input, platform, url, recording) => {
    expect(streams.match(new URL(input))).toEqual({ kind: "platform", platform, url, recording });
  });

  it.each([
    "https://www.twitch.tv/videos/2012345678",
    "https://www.twitch.tv/verbatimtests/clip/Abc",
    "https://www.youtube.com/@jawed",
    "https://radio.example.org/live.m3u8",
  ])("leaves %s to other sources", (input) => {
    expect(streams.match(new URL(input))).toBeNull();
  });

  it("asks yt-dlp through the egress guard and resolves its info dict", async () => {
    const asked: Array<{ url: string; proxy?: string }> = [];
    const withEngine = new YtdlpLiveStreams({
      engine: {
        extract: async (url, call) => {
          asked.push({ url, ...(call.proxy ? { proxy: call.proxy } : {}) });
          return infoDict("twitch-live");
        },
      },
      absentAdvice: "Install yt-dlp.",
      egress,
    });
    const ref = {
      kind: "platform",
      platform: "twitch",
      url: "https://www.twitch.tv/verbatimtests",
      recording: null,
    } as const;
    expect((await withEngine.resolve(ref)).state).toBe("live");
    expect(asked).toEqual([
      { url: "https://www.twitch.tv/verbatimtests", proxy: "http://call-test:secret@127.0.0.1:9" },
    ]);
  });

  it("takes yt-dlp's refusal of an event that has not begun as waiting", async () => {
    const withEngine = new YtdlpLiveStreams({
      engine: {
        extract: async () => {
          throw new SourceError("live_stream", "This live event will begin in 3 hours.");
        },
      },
      absentAdvice: "Install yt-dlp.",
      egress,
    });
    const ref = {
      kind: "platform",
      platform: "youtube",
      url: "https://www.youtube.com/watch?v=UpCoMiNgEvT",
      recording: "UpCoMiNgEvT",
    } as const;
    expect(await withEngine.resolve(ref)).toMatchObject({
      state: "waiting",
      startsAt: null,
      details: { videoId: "UpCoMiNgEvT" },
    });
  });

  it("refuses a broadcast as unsupported, saying how to enable it, where yt-dlp is not installed", async () => {
    const ref = {
      kind: "platform",
      platform: "youtube",
      url: "https://www.youtube.com/watch?v=LiVeHeArInG",
      recording: "LiVeHeArInG",
    } as const;
    await expect(streams.resolve(ref)).rejects.toMatchObject({
      kind: "unsupported",
      message: expect.stringMatching(/Install yt-dlp/),
    });
  });
});

describe("LiveSources.match", () => {
  const fetch = Object.assign(async () => new Response(""), { close: async () => {} }) as unknown as PublicFetch;
  const sources = createLiveSources(new YtdlpLiveStreams({ engine: null, absentAdvice: "", egress }), fetch);

  it("asks the platforms first, then takes any other address as a stream given directly", () => {
    expect(sources.match("https://youtu.be/LiVeHeArInG").kind).toBe("platform");
    expect(sources.match("https://radio.example.org/stream")).toEqual({
      kind: "direct",
      url: "https://radio.example.org/stream",
    });
  });

  it.each([
    ["no http(s) address", "ftp://radio.example.org/live", /not an http\(s\) address/],
    ["an address with credentials", "https://user:secret@radio.example.org/live.m3u8", /user name or password/],
  ])("refuses %s as invalid_input", (_case, input, message) => {
    expect(() => sources.match(input)).toThrow(
      expect.objectContaining({ kind: "invalid_input", message: expect.stringMatching(message) }),
    );
  });
});
