import { errorTable } from "@verbatim/contract";
import { describe, expect, it } from "vitest";
import { SourceError } from "../../sources/source-error.ts";
import { toApiError } from "./source-failures.ts";

/** The envelope's error block of a source failure, as a client reads it. */
function blockOf(error: SourceError): Record<string, unknown> {
  const mapped = toApiError(error);
  return { status: mapped.status, ...mapped.toBody("https://verbatim.example") };
}

describe("toApiError for a podcast show's failures", () => {
  it("answers a show link where an episode is needed as 422 invalid_input with retry_with the channel endpoint", () => {
    expect(blockOf(new SourceError("listing", "A show, not an episode."))).toEqual({
      status: 422,
      code: "invalid_input",
      number: errorTable.invalid_input.number,
      message: "A show, not an episode.",
      docs: "https://verbatim.example/docs/errors/invalid_input",
      retry_with: { endpoint: "/api/v2/transcripts/channel" },
    });
  });

  it.each(["no_public_feed", "episode_not_in_feed"] as const)(
    "answers %s as 422 podcast_feed_not_found with that reason and the candidates",
    (kind) => {
      const block = blockOf(new SourceError(kind, "No feed.", { candidates: ["https://feeds.example.org/a.xml"] }));
      expect(block).toMatchObject({
        status: 422,
        code: "podcast_feed_not_found",
        number: 3003,
        details: { reason: kind, candidates: ["https://feeds.example.org/a.xml"] },
      });
    },
  );

  it("leaves candidates out when none came near, as the contract's optional field", () => {
    expect(blockOf(new SourceError("no_public_feed", "No feed.")).details).toEqual({ reason: "no_public_feed" });
  });

  it("keeps every other invalid_input free of retry_with", () => {
    expect(blockOf(new SourceError("invalid_input", "Malformed."))).not.toHaveProperty("retry_with");
  });
});

describe("toApiError for a list's failures", () => {
  it("answers an item sent where a list is needed as 422 endpoint_platform_mismatch with retry_with the video endpoint", () => {
    expect(blockOf(new SourceError("item_not_list", "A post, not a profile."))).toEqual({
      status: 422,
      code: "endpoint_platform_mismatch",
      number: errorTable.endpoint_platform_mismatch.number,
      message: "A post, not a profile.",
      docs: "https://verbatim.example/docs/errors/endpoint_platform_mismatch",
      retry_with: { endpoint: "/api/v2/transcripts/video" },
    });
  });

  it.each(["no_feed_link", "not_a_feed", "feed_unreadable"] as const)(
    "answers %s as 422 podcast_feed_not_found with that reason",
    (kind) => {
      expect(
        blockOf(new SourceError(kind, "No feed.", { candidates: ["https://feeds.example.org/a.xml"] })),
      ).toMatchObject({
        status: 422,
        code: "podcast_feed_not_found",
        details: { reason: kind, candidates: ["https://feeds.example.org/a.xml"] },
      });
    },
  );
});

describe("toApiError for live streams", () => {
  it("answers 422 live_stream (4101) with retry_with naming POST /live, which transcribes it as it plays", () => {
    expect(blockOf(new SourceError("live_stream", "The item is live."))).toEqual({
      status: 422,
      code: "live_stream",
      number: 4101,
      message: "The item is live.",
      docs: "https://verbatim.example/docs/errors/live_stream",
      retry_with: { endpoint: "/api/v2/live" },
    });
  });

  it("answers a live session asked of a recording as 422 invalid_input with retry_with the video endpoint", () => {
    expect(blockOf(new SourceError("not_live", "The item is a recording."))).toEqual({
      status: 422,
      code: "invalid_input",
      number: errorTable.invalid_input.number,
      message: "The item is a recording.",
      docs: "https://verbatim.example/docs/errors/invalid_input",
      retry_with: { endpoint: "/api/v2/transcripts/video" },
    });
  });
});
