import { FakeYoutube, recordedVideos } from "@verbatim/testkit/fake-youtube";
import { type PlatformDouble, startPlatformDouble } from "@verbatim/testkit/platform-double";
import { afterAll, afterEach, beforeAll, describe, expect, it, type MockInstance, vi } from "vitest";
import type { ProcessServices } from "../../src/assembly/services.ts";
import { KeptTranscripts } from "../../src/services/kept/kept-transcripts.ts";
import { TranscriptStore } from "../../src/services/kept/transcript-store.ts";
import type { AudioTranscripts } from "../../src/services/transcripts/audio-transcripts.ts";
import type { PlatformSource } from "../../src/sources/platform-source.ts";
import type { SourceRegistry } from "../../src/sources/registry.ts";
import { type AudioServer, startAudioServer } from "../audio/harness.ts";
import { fetchTranscript, type Loose } from "../audio/requests.ts";

// A request's walk through POST /transcripts/video, for a TikTok post (the real yt-dlp against
// the platform double), an Apple Podcasts episode (Apple's directory and the feed it names, on
// the same double) and a YouTube video (the fake YouTube): route, then the one entry point of
// the transcript service, then the source registry, then the source it names, then the store,
// each once and in that order. The spies call through: nothing is stood in for.

const tiktokPost = "https://www.tiktok.com/@verbatim.tests/video/7400000000000000001";
const appleEpisode = "https://podcasts.apple.com/us/podcast/id1550000001?i=1000650000005";
const youtubeVideo = recordedVideos.captioned;

let double: PlatformDouble;
let youtube: FakeYoutube;
let server: AudioServer;
let registry: SourceRegistry;
let entry: MockInstance<AudioTranscripts["request"]>;
let match: MockInstance<SourceRegistry["match"]>;
const resolved = new Map<string, MockInstance<PlatformSource["resolve"]>>();
const read = new Map<string, MockInstance<PlatformSource["captions"]>>();
let keptCaptions: MockInstance<TranscriptStore["keepCaptions"]>;
let keptSpeech: MockInstance<TranscriptStore["keepSpeech"]>;
let servedKept: MockInstance<KeptTranscripts["serve"]>;

beforeAll(async () => {
  double = await startPlatformDouble();
  youtube = await FakeYoutube.start();
  youtube.serveRecordedVideos();
  server = await startAudioServer({ workers: 0, platformDouble: double, podcastDouble: double, youtube });
  const services = server.deps.services as ProcessServices;
  if (!services.audioTranscripts) throw new Error("the server has no transcript service");
  registry = services.links as SourceRegistry;
  entry = vi.spyOn(services.audioTranscripts, "request");
  match = vi.spyOn(registry, "match");
  for (const member of registry.members) {
    resolved.set(member.label, vi.spyOn(member, "resolve"));
    read.set(member.label, vi.spyOn(member, "captions"));
  }
  keptCaptions = vi.spyOn(TranscriptStore.prototype, "keepCaptions");
  keptSpeech = vi.spyOn(TranscriptStore.prototype, "keepSpeech");
  servedKept = vi.spyOn(KeptTranscripts.prototype, "serve");
}, 120_000);

afterEach(() => {
  vi.clearAllMocks();
});

afterAll(async () => {
  vi.restoreAllMocks();
  await server?.close();
  await double?.close();
  await youtube?.close();
});

/** When a spy was first called, in the order of every spy's calls; Infinity when it was not. */
function firstCall(spy: MockInstance): number {
  return spy.mock.invocationCallOrder[0] ?? Number.POSITIVE_INFINITY;
}

/** The registry member the walk reached, by what it reads. */
function memberFor(platform: string): PlatformSource {
  const member = registry.sourceOf(platform);
  if (!member) throw new Error(`no source serves ${platform}`);
  return member;
}

/** Asks for the input's transcript and answers its data, after checking the entry point was entered once. */
async function walk(video: string): Promise<Loose> {
  const answer = await fetchTranscript(server, { video });
  expect(answer.status, answer.text.slice(0, 2000)).toBe(200);
  expect(entry).toHaveBeenCalledTimes(1);
  expect(entry.mock.calls[0]?.[0]).toMatchObject({ video });
  expect(match).toHaveBeenCalledTimes(1);
  expect(match.mock.calls[0]?.[0]).toBe(video);
  return (answer.body as Loose).data;
}

/** The members other than `source` were not asked to resolve anything. */
function onlyResolvedBy(source: PlatformSource): void {
  for (const [label, spy] of resolved) {
    if (label !== source.label) expect(spy, label).not.toHaveBeenCalled();
  }
}

describe("route → AudioTranscripts.request → registry → source → store", () => {
  it("a TikTok post: yt-dlp resolves it and reads its captions, which the store keeps", async () => {
    const data = await walk(tiktokPost);
    expect(data).toMatchObject({ platform: "tiktok", video_id: "7400000000000000001", source: "captions" });
    const ytdlp = memberFor("tiktok");
    const resolve = resolved.get(ytdlp.label) as MockInstance;
    const captions = read.get(ytdlp.label) as MockInstance;
    expect(resolve).toHaveBeenCalledTimes(1);
    expect(resolve.mock.calls[0]?.[0]).toMatchObject({ platform: "tiktok", url: tiktokPost });
    onlyResolvedBy(ytdlp);
    expect(captions).toHaveBeenCalledTimes(1);
    expect(keptCaptions).toHaveBeenCalledTimes(1);
    expect(keptCaptions.mock.calls[0]?.[0]).toEqual({ platform: "tiktok", item: "7400000000000000001" });
    const order = [entry, match, resolve, captions, keptCaptions].map(firstCall);
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });

  it("the same TikTok post again: resolved again, then served by the store's one statement, no captions read", async () => {
    await walk(tiktokPost);
    const ytdlp = memberFor("tiktok");
    const resolve = resolved.get(ytdlp.label) as MockInstance;
    expect(resolve).toHaveBeenCalledTimes(1);
    expect(read.get(ytdlp.label)).not.toHaveBeenCalled();
    expect(keptCaptions).not.toHaveBeenCalled();
    expect(servedKept).toHaveBeenCalledTimes(1);
    expect(await servedKept.mock.results[0]?.value).toMatchObject({ kind: "transcript" });
    expect(firstCall(resolve)).toBeLessThan(firstCall(servedKept));
  });

  it("an Apple Podcasts episode: the web resolves it through Apple's directory and its feed, and keeps its speech", async () => {
    const data = await walk(appleEpisode);
    expect(data).toMatchObject({ platform: "podcast", source: "audio", podcast: { resolved_via: "apple" } });
    const web = memberFor("podcast");
    const resolve = resolved.get(web.label) as MockInstance;
    expect(resolve).toHaveBeenCalledTimes(1);
    expect(resolve.mock.calls[0]?.[0]).toMatchObject({ url: appleEpisode });
    onlyResolvedBy(web);
    expect(keptSpeech).toHaveBeenCalledTimes(1);
    // Kept under its media's address, as a link to that file is: any feed, page or link to it is one item.
    expect(keptSpeech.mock.calls[0]?.[0]).toEqual({
      platform: "file",
      item: "https://podcasts.example/media/ep-plain.mp3",
    });
    const order = [entry, match, resolve, keptSpeech].map(firstCall);
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });

  it("a YouTube video: the store is asked first, then YouTube resolves it and reads its captions, which the store keeps", async () => {
    const data = await walk(youtubeVideo);
    expect(data).toMatchObject({ platform: "youtube", video_id: youtubeVideo, source: "captions" });
    const source = memberFor("youtube");
    const resolve = resolved.get(source.label) as MockInstance;
    expect(resolve).toHaveBeenCalledTimes(1);
    expect(resolve.mock.calls[0]?.[0]).toMatchObject({ platform: "youtube", itemId: youtubeVideo });
    onlyResolvedBy(source);
    expect(keptCaptions).toHaveBeenCalledTimes(1);
    expect(keptCaptions.mock.calls[0]?.[0]).toEqual({ platform: "youtube", item: youtubeVideo });
    const order = [entry, match, servedKept, resolve, read.get(source.label) as MockInstance, keptCaptions].map(
      firstCall,
    );
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });

  it("the same YouTube video again: served by the store's one statement, before YouTube is asked anything", async () => {
    const upstreamCalls = youtube.requests.length;
    await walk(youtubeVideo);
    expect(resolved.get(memberFor("youtube").label)).not.toHaveBeenCalled();
    expect(servedKept).toHaveBeenCalledTimes(1);
    expect(await servedKept.mock.results[0]?.value).toMatchObject({ kind: "transcript" });
    expect(youtube.requests.length).toBe(upstreamCalls);
  });
});
