import { audioFixture } from "@verbatim/testkit/fake-podcast-host";
import { parseSync } from "subtitle";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testEngine } from "../support/store.ts";
import { type AudioServer, startAudioServer } from "./harness.ts";
import { expectJobAccepted, fetchTranscript, type Loose, pollUntilFinished } from "./requests.ts";

describe(`format and chunk_size on a request that becomes a job (${testEngine})`, () => {
  let server: AudioServer;

  beforeAll(async () => {
    server = await startAudioServer({ inlineAudioSeconds: 0 });
    server.host.serveFile("/media/jfk.mp3", audioFixture("whisper-cpp/jfk.mp3"), "audio/mpeg");
  });
  afterAll(() => server?.close());

  it("answers 202, and the job completes as a full transcript: text and segments, whatever the request asked", async () => {
    const balance = await server.platform.credits.balance(server.account.id);
    const accepted = await fetchTranscript(server, {
      video: server.host.url("/media/jfk.mp3"),
      format: "srt",
      chunk_size: 100,
    });
    const pollUrl = expectJobAccepted(accepted, { platform: "file", balance });
    const { answer } = await pollUntilFinished(server, pollUrl, 60_000);
    const body = answer.body as Loose;
    expect(body.status, answer.text).toBe("completed");
    expect(body.data.text).toMatch(/ask not what your country can do for you/i);
    expect(body.data.segments.length).toBeGreaterThan(0);
    for (const rendering of ["format", "subtitles", "chunks"]) expect(body.data).not.toHaveProperty(rendering);

    const read = await server.client.GET("/library/{id}", {
      params: { path: { id: `file:${body.data.video_id}` }, query: { format: "vtt", chunk_size: 100 } },
    });
    expect(read.response.status, JSON.stringify(read.error)).toBe(200);
    const cues = parseSync(read.data?.data.subtitles ?? "").flatMap((node) => (node.type === "cue" ? [node.data] : []));
    expect(cues.map((cue) => cue.text).join(" ")).toBe(body.data.text);
    expect(read.data?.data.chunks?.map((chunk) => chunk.text).join(" ")).toBe(body.data.text);
  });
});
