import { audioFixture } from "@verbatim/testkit/fake-podcast-host";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LiveResolution, LiveSource, LiveStreamRef } from "../../src/sources/live/index.ts";
import type { Store } from "../../src/store/database.ts";
import { send } from "../support/http.ts";
import { openTestStore } from "../support/store.ts";
import { acceptedSession, type LiveServer, readEvents, sessionWhen, startLiveServer, startSession } from "./harness.ts";
import { type CutSegment, cutRecording, type LiveHlsServer, startLiveHlsServer } from "./live-hls.ts";

/**
 * YouTube broadcasts as yt-dlp resolves them (sources/live/live-info-dict.ts, tested on authored info
 * dicts), played here by a stand-in that answers what a test scripts for each video: announced,
 * live at a loopback playlist, or over.
 */
class ScriptedBroadcasts implements LiveSource {
  readonly asked: string[] = [];
  private readonly scripts = new Map<string, Array<() => LiveResolution>>();

  match(url: URL): LiveStreamRef | null {
    const id = url.hostname === "www.youtube.com" ? url.searchParams.get("v") : null;
    return id
      ? { kind: "platform", platform: "youtube", url: `https://www.youtube.com/watch?v=${id}`, recording: id }
      : null;
  }

  async resolve(ref: LiveStreamRef): Promise<LiveResolution> {
    const id = new URL(ref.url).searchParams.get("v") ?? "";
    this.asked.push(id);
    const script = this.scripts.get(id) ?? [];
    const next = script.length > 1 ? script.shift() : script[0];
    if (!next) throw new Error(`no script for ${id}`);
    return next();
  }

  /** The video answers each of `steps` in turn, the last one from then on. */
  script(id: string, ...steps: Array<() => LiveResolution>): string {
    this.scripts.set(id, steps);
    return `https://www.youtube.com/watch?v=${id}`;
  }
}

const details = (videoId: string) => ({
  platform: "youtube",
  videoId,
  title: "A hearing, live",
  channel: "Verbatim Tests",
});
const waiting = (videoId: string) => (): LiveResolution => ({
  state: "waiting",
  startsAt: null,
  details: details(videoId),
});
const live = (videoId: string, address: () => string) => (): LiveResolution => ({
  state: "live",
  reading: "hls",
  address: address(),
  details: details(videoId),
});

let store: Store;
let server: LiveServer;
let hls: LiveHlsServer;
let jfk: CutSegment[];
const broadcasts = new ScriptedBroadcasts();

beforeAll(async () => {
  store = await openTestStore();
  server = await startLiveServer(store, { platforms: broadcasts });
  hls = await startLiveHlsServer();
  jfk = await cutRecording(audioFixture("whisper-cpp/jfk.wav"));
}, 120_000);
afterAll(async () => {
  await server?.close();
  await hls?.close();
  await store?.close();
});

describe("a YouTube broadcast", () => {
  it("waits while announced, is read once it starts, and enters the library as the video's own entry", async () => {
    // The broadcast starts (its playlist begins releasing segments) when it is first answered live,
    // so the reader joins it at its start, as a session that waited for it does.
    let playlist: ReturnType<LiveHlsServer["paced"]> | undefined;
    const url = broadcasts.script(
      "AnNoUnCeD01",
      waiting("AnNoUnCeD01"),
      waiting("AnNoUnCeD01"),
      live("AnNoUnCeD01", () => {
        playlist ??= hls.paced("announced", jfk, { intervalMs: 300 });
        return playlist.url;
      }),
    );
    const answer = await startSession(server, { url });
    const sessionId = acceptedSession(answer);
    expect((answer.body as { data: Record<string, unknown> }).data).toMatchObject({
      status: "waiting",
      source: { platform: "youtube", video_id: "AnNoUnCeD01", title: "A hearing, live", reading: "hls", url },
    });
    const ended = await sessionWhen(server, sessionId, (session) => session.status === "ended", 60_000);
    expect(broadcasts.asked.filter((id) => id === "AnNoUnCeD01").length).toBeGreaterThanOrEqual(3);
    expect(ended.library).toEqual({ id: "youtube:AnNoUnCeD01", replaceable_by_captions: true });
    const entry = await send(server, { method: "GET", path: "/api/v2/library/youtube:AnNoUnCeD01?format=text" });
    expect(entry.status, entry.text).toBe(200);
    expect((entry.body as { data: { text: string } }).data.text).toMatch(/what you can do for your country$/);
  });

  it("is refused as was_live (4102) once it is over", async () => {
    const url = broadcasts.script("PaStStReAmX", () => ({ state: "over", details: details("PaStStReAmX") }));
    const answer = await startSession(server, { url });
    expect(answer.status, answer.text).toBe(422);
    expect((answer.body as { error: unknown }).error).toMatchObject({ code: "was_live", number: 4102 });
  });

  it("is resolved again when its signed playlist expires (403), and read on where it was", async () => {
    const first = hls.paced("signed-first", jfk, { intervalMs: 1_000 });
    let second: ReturnType<LiveHlsServer["paced"]> | undefined;
    // The admission and the worker read the first address; once it expired, the platform signs a
    // new address of the same stream, numbered as the first one.
    const url = broadcasts.script(
      "ExPiRiNgUrL",
      live("ExPiRiNgUrL", () => first.url),
      live("ExPiRiNgUrL", () => first.url),
      () => {
        second ??= hls.paced("signed-second", jfk, { intervalMs: 1_000, initial: first.released() });
        const renewed = second;
        return live("ExPiRiNgUrL", () => renewed.url)();
      },
    );
    const sessionId = acceptedSession(await startSession(server, { url }));
    await sessionWhen(server, sessionId, (session) => session.segments.length > 0, 30_000);
    first.expire();
    const events = await readEvents(server, sessionId);
    expect(events.at(-1)?.data).toMatchObject({ type: "live.ended", reason: "stream_ended" });
    expect(broadcasts.asked.filter((id) => id === "ExPiRiNgUrL").length).toBeGreaterThanOrEqual(3);
    expect(events.filter((event) => event.event === "live.gap")).toEqual([]);
    const text = events
      .filter((event) => event.event === "live.segment")
      .map((event) => event.data.text)
      .join(" ");
    expect(text).toMatch(/what you can do for your country$/);
  });
});
