import { describe, expect, it } from "vitest";
import { findTranscriptPanelParams, readTranscriptPanel } from "./transcript-panel.ts";

/** As many values as a 10 MB answer holds: far more than a call's arguments may be. */
const manyValues = 300_000;

describe("the transcript panel's search of an InnerTube answer", () => {
  it("finds the get_transcript token behind an array of 300,000 items", () => {
    const items: unknown[] = Array.from({ length: manyValues }, () => ({}));
    items[0] = { getTranscriptEndpoint: { params: "token" } };
    expect(findTranscriptPanelParams({ contents: items })).toBe("token");
  });

  it("reads the segments behind an object of 300,000 keys", () => {
    const answer: Record<string, unknown> = {};
    for (let index = 0; index < manyValues; index++) answer[`k${index}`] = index;
    answer.k0 = {
      transcriptSearchPanelRenderer: {
        body: {
          transcriptSegmentListRenderer: {
            initialSegments: [
              { transcriptSegmentRenderer: { startMs: "0", endMs: "1500", snippet: { simpleText: "hello" } } },
            ],
          },
        },
      },
    };
    expect(readTranscriptPanel(answer).segments).toEqual([{ start: 0, duration: 1.5, text: "hello" }]);
  });
});
