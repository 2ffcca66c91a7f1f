import { fromFixture } from "@verbatim/testkit/fake-youtube";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderTranscript, type Segment, textOf } from "../../src/services/renderings/transcript-renderings.ts";
import { probeHealthAfterStatements } from "../support/health-probes.ts";
import { testEngine } from "../support/store.ts";
import { serverStartTimeoutMs, startYoutubeServer, type YoutubeTestServer } from "../support/youtube-server.ts";

const surfaceGo = "GJLlxj_dtq8";
const cueCount = 20_000;

/** Captions of many short cues, as a long stream's automatic captions have, in YouTube's srv3. */
const cues: Segment[] = Array.from({ length: cueCount }, (_, index) => ({
  start: index * 1.5,
  duration: 1.5,
  text: `cue ${index} of a very long stream, said "twice" & more`,
}));
const srv3 = `<?xml version="1.0" encoding="utf-8" ?><timedtext format="3"><body>${cues
  .map(
    (cue) =>
      `<p t="${Math.round(cue.start * 1000)}" d="${Math.round(cue.duration * 1000)}">${cue.text
        .replaceAll("&", "&amp;")
        .replaceAll('"', "&quot;")}</p>`,
  )
  .join("")}</body></timedtext>`;

let yt: YoutubeTestServer;

beforeAll(async () => {
  // As in production: a validator reading every body as an object would keep them on the event loop.
  yt = await startYoutubeServer({ credits: 100, deps: { validateResponses: false } });
  yt.fake
    .player(surfaceGo, fromFixture("youtube-transcript-api/youtube.innertube.json.static"))
    .timedtext({ v: surfaceGo, lang: "en" }, { status: 200, body: srv3 });
}, serverStartTimeoutMs);
afterAll(() => yt?.close());

/** Asks for the video's transcript; `onStarted` is called when the answer's headers arrive. */
async function fetchRaw(body: Record<string, unknown>, onStarted = () => {}) {
  const response = await fetch(`${yt.server.baseUrl}/api/v2/transcripts/video`, {
    method: "POST",
    headers: { authorization: `Bearer ${yt.server.key.key}`, "content-type": "application/json" },
    body: JSON.stringify({ video: surfaceGo, language: "en", ...body }),
  });
  onStarted();
  const text = Buffer.from(await response.arrayBuffer()).toString("utf8");
  return { status: response.status, headers: response.headers, text, body: JSON.parse(text) };
}

/** The body the event loop's own renderer writes: `renderTranscript`'s fields after the transcript's others, serialised whole. */
function renderedWhole(
  sent: { request_id: string; data: Record<string, unknown>; usage: unknown },
  segments: Segment[],
  request: Parameters<typeof renderTranscript>[1],
): string {
  const renderings = renderTranscript(segments, request);
  const fields = Object.fromEntries(Object.entries(sent.data).filter(([name]) => !(name in renderings)));
  return JSON.stringify({
    ok: true,
    request_id: sent.request_id,
    data: { ...fields, ...renderings },
    usage: sent.usage,
  });
}

describe(`POST /transcripts/video of a large transcript: 200 (${testEngine})`, () => {
  it("writes a fetched transcript as segments with chunks byte for byte as the whole-body renderer", async () => {
    const answer = await fetchRaw({ format: "segments", chunk_size: 500 });
    expect(answer.status, answer.text.slice(0, 500)).toBe(200);
    expect(Number(answer.headers.get("content-length"))).toBe(Buffer.byteLength(answer.text));
    expect(answer.body.usage).toEqual({ credits_spent: 1, balance: 99, bytes: Buffer.byteLength(textOf(cues)) });
    expect(answer.text).toBe(renderedWhole(answer.body, cues, { format: "segments", chunkSize: 500 }));
  });

  it("answers other requests between reading a stored transcript and answering it, whose bytes are the whole-body renderer's", async () => {
    // The segments as the store keeps them, in the order of its fields, spliced into this answer unparsed.
    const stored = await fetchRaw({});
    expect(stored.status, stored.text.slice(0, 500)).toBe(200);
    const storedSegments = stored.body.data.segments as Segment[];
    expect(storedSegments).toEqual(cues);

    const events: string[] = [];
    const probes = probeHealthAfterStatements(
      yt.server,
      (sql) => sql.includes("stored_transcripts"),
      () => events.push("health answered"),
    );
    let answer: Awaited<ReturnType<typeof fetchRaw>>;
    try {
      answer = await fetchRaw({ format: "srt", chunk_size: 100 }, () => events.push("large answer started"));
      await Promise.all(probes.answered);
    } finally {
      probes.stop();
    }
    expect(probes.answered.length).toBeGreaterThan(0);
    // Every health check asked once the stored words were read was answered before the large answer began.
    expect(events).toEqual([...probes.answered.map(() => "health answered"), "large answer started"]);
    expect(answer.status, answer.text.slice(0, 500)).toBe(200);
    expect(answer.body.usage).toEqual({ credits_spent: 1, balance: 97, bytes: Buffer.byteLength(textOf(cues)) });
    expect(answer.text).toBe(renderedWhole(answer.body, storedSegments, { format: "srt", chunkSize: 100 }));
  });
});
