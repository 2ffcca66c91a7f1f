import { describe, expect, it } from "vitest";
import type { LiveSessionRow } from "./live-store.ts";
import { liveTranscript, segmentFields, sessionView } from "./live-views.ts";

const engine = { engine: "sherpa-onnx" as const, model: "zipformer", language: "en", decoding: "greedy_search" };

function row(source: Record<string, unknown>, changes: Partial<LiveSessionRow> = {}): LiveSessionRow {
  return {
    id: "live_01JD7XT4C6E8G0J2K4N6Q8S0V2",
    accountId: "acct_1",
    status: "ended",
    endReason: "stream_ended",
    error: null,
    url: String(source.url),
    source,
    stream: {},
    language: "en",
    partials: true,
    maxMinutes: 60,
    webhookUrl: null,
    requestId: "req_1",
    docsBaseUrl: "https://verbatim.example",
    createdAt: new Date("2026-11-22T10:00:00Z"),
    startedAt: new Date("2026-11-22T10:00:02Z"),
    endedAt: new Date("2026-11-22T10:10:00Z"),
    stopRequestedAt: null,
    nextAttemptAt: new Date("2026-11-22T10:00:00Z"),
    leaseOwner: null,
    leaseExpiresAt: null,
    audioSeconds: 61.2345,
    timelineSeconds: 64,
    chargedMinutes: 2,
    lastSeq: 5,
    partial: null,
    position: null,
    webhookSentSeq: 0,
    webhookSentAt: null,
    libraryEntry: null,
    updatedAt: new Date("2026-11-22T10:10:00Z"),
    ...changes,
  };
}

const youtube = {
  url: "https://www.youtube.com/watch?v=LiVeHeArInG",
  platform: "youtube",
  reading: "hls",
  video_id: "LiVeHeArInG",
  title: "A hearing",
  channel: "Verbatim Tests",
};
const youtubeStream = {
  kind: "platform",
  platform: "youtube",
  url: youtube.url,
  recording: "LiVeHeArInG",
};
const radio = {
  url: "https://radio.example.org/stream",
  platform: "file",
  reading: "icecast",
  video_id: null,
  title: null,
  channel: null,
};

describe("a live session's transcript for the library", () => {
  const segments = [
    { seq: 2, start: 0.5, duration: 2, text: "ask not", words: [{ text: "ask", start: 0.5, duration: 1 }] },
    { seq: 4, start: 10, duration: 1.5, text: " ", words: [] },
    { seq: 5, start: 12, duration: 3, text: "what your country", words: [] },
  ];

  it("is a YouTube broadcast's own entry, which YouTube's captions of the past stream may replace", () => {
    const transcript = liveTranscript(row(youtube, { stream: youtubeStream }), segments, engine);
    expect(transcript).toMatchObject({
      video_id: "LiVeHeArInG",
      platform: "youtube",
      title: "A hearing",
      source: "audio",
      text: "ask not what your country",
      duration: 64,
      speech_engine: { engine: "sherpa-onnx", model: "zipformer", decoding: "greedy_search" },
    });
    expect(transcript?.segments.map((segment) => segment.text)).toEqual(["ask not", "what your country"]);
    expect(sessionView(row(youtube, { stream: youtubeStream, libraryEntry: "youtube:LiVeHeArInG" })).library).toEqual({
      id: "youtube:LiVeHeArInG",
      replaceable_by_captions: true,
    });
  });

  it("is an entry of its own, under the session's id, for a stream given directly", () => {
    expect(liveTranscript(row(radio), segments, engine)).toMatchObject({
      video_id: "live_01JD7XT4C6E8G0J2K4N6Q8S0V2",
      platform: "file",
    });
    expect(sessionView(row(radio, { libraryEntry: "file:live_01JD7XT4C6E8G0J2K4N6Q8S0V2" })).library).toEqual({
      id: "file:live_01JD7XT4C6E8G0J2K4N6Q8S0V2",
      replaceable_by_captions: false,
    });
  });

  it("is an entry of its own, under the session's id, for a channel's stream recorded as no item", () => {
    const stream = { kind: "platform", platform: "youtube", url: youtube.url, recording: null };
    expect(liveTranscript(row(youtube, { stream }), segments, engine)).toMatchObject({
      video_id: "live_01JD7XT4C6E8G0J2K4N6Q8S0V2",
    });
    expect(
      sessionView(row(youtube, { stream, libraryEntry: "youtube:live_01JD7XT4C6E8G0J2K4N6Q8S0V2" })).library,
    ).toMatchObject({ replaceable_by_captions: false });
  });

  it("is nothing when the session heard no words", () => {
    expect(liveTranscript(row(radio), [{ seq: 2, start: 0, duration: 1, text: "", words: [] }], engine)).toBeNull();
  });
});

describe("a live session as the API shows it", () => {
  it("rounds its audio to the millisecond, counts a credit per charged minute and links its events", () => {
    expect(sessionView(row(radio))).toMatchObject({
      audio_seconds: 61.235,
      credits_spent: 2,
      last_event_seq: 5,
      events_url: "/api/v2/live/live_01JD7XT4C6E8G0J2K4N6Q8S0V2/events",
      poll_url: "/api/v2/live/live_01JD7XT4C6E8G0J2K4N6Q8S0V2",
      error: null,
    });
  });

  it("shows a failure as the error block of its code, with its number and docs", () => {
    const failed = row(radio, {
      status: "failed",
      endReason: null,
      error: { code: "audio_ineligible", message: "Too many bytes." },
    });
    expect(sessionView(failed).error).toEqual({
      code: "audio_ineligible",
      number: 3004,
      message: "Too many bytes.",
      docs: "https://verbatim.example/docs/errors/audio_ineligible",
    });
  });
});

describe("a final segment's fields", () => {
  it("are moved by the decoding's place on the session's timeline, to the millisecond, words included", () => {
    expect(
      segmentFields(
        {
          start: 1.23456,
          duration: 0.5004,
          text: "ask\u0007 not",
          words: [{ text: "ask", start: 1.23456, duration: 0.2 }],
        },
        100,
      ),
    ).toEqual({
      start: 101.235,
      duration: 0.5,
      text: "ask not",
      words: [{ text: "ask", start: 101.235, duration: 0.2 }],
    });
  });
});
