import { type ErrorCode, errorTable } from "@verbatim/contract";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/errors.ts";
import { aiFallbackOf, reasonOf, v1CodeOf } from "../../src/http/v1/errors.ts";
import { describeErrors, follow, readVerbatimDocument } from "../support/openapi.ts";
import { anchorV1 } from "./support.ts";

const declared = follow(readVerbatimDocument("v1"), ["components", "schemas", "ErrorCode", "enum"]).node;
const v1Codes = Array.isArray(declared) ? (declared as string[]) : [];
const v2Codes = Object.keys(errorTable) as ErrorCode[];

/** An error of the code, with the extra field the table requires, as the server makes it. */
function errorOf(code: ErrorCode): ApiError {
  const carries = errorTable[code].carries;
  const extra =
    carries === "issues"
      ? { issues: [{ path: "/body/video", message: "is invalid" }] }
      : carries === "retry_with"
        ? { retry_with: { mode: "audio" } }
        : carries === "details"
          ? { details: {} }
          : undefined;
  return new ApiError(code, `A ${code} failure.`, extra === undefined ? {} : { extra });
}

describe("v1 error codes", () => {
  it("has codes", () => {
    expect(v1Codes.length).toBeGreaterThan(20);
  });

  it.each(v2Codes)("answers v2's %s as a code of v1's closed set", (code) => {
    expect(v1Codes).toContain(v1CodeOf(code));
  });

  it("declares no v1 code that no v2 error answers as", () => {
    const reached = new Set(v2Codes.map(v1CodeOf));
    expect(v1Codes.filter((code) => !reached.has(code as never))).toEqual([]);
  });

  it("keeps the precise code as reason wherever it folded into another", () => {
    for (const code of v2Codes.filter((candidate) => v1CodeOf(candidate) !== candidate)) {
      expect(reasonOf(code), code).toBe(code);
    }
    expect(reasonOf("unauthorized")).toBeUndefined();
    expect(reasonOf("private")).toBe("private");
  });
});

describe("the ai_fallback block of a transcript failure", () => {
  it.each(v2Codes)("for %s, valid against the hosted v1 contract when present", (code) => {
    const block = aiFallbackOf(errorOf(code), 42);
    if (block === undefined) {
      expect(Math.floor(errorTable[code].number / 1000), "only request and internal failures have none").toBeOneOf([
        1, 2, 9,
      ]);
      return;
    }
    const errors = anchorV1.errors("/components/schemas/AiFallback", block);
    expect(errors, describeErrors(errors)).toEqual([]);
    expect(block.balance).toBe(42);
  });

  it("is available, with retry_with ai_fallback, exactly when the v2 error offers mode audio", () => {
    const offered = new ApiError("no_captions", "none", { extra: { retry_with: { mode: "audio" } } });
    expect(aiFallbackOf(offered, null)).toMatchObject({
      available: true,
      captions_unavailable: true,
      retry_with: { ai_fallback: true },
      balance: null,
    });
    const otherEndpoint = new ApiError("endpoint_platform_mismatch", "lists", {
      extra: { retry_with: { endpoint: "/transcripts/video" } },
    });
    expect(aiFallbackOf(otherEndpoint, 1)).toMatchObject({ available: false, unavailable_reason: "unsupported_input" });
    expect(aiFallbackOf(new ApiError("no_speech", "silence"), 1)).toMatchObject({
      available: false,
      unavailable_reason: "no_speech_to_transcribe",
    });
    expect(aiFallbackOf(new ApiError("timeout", "slow"), 1)).toMatchObject({
      available: false,
      unavailable_reason: "retry_captions_first",
    });
    expect(aiFallbackOf(new ApiError("insufficient_credits", "poor"), 0)).toMatchObject({
      available: false,
      unavailable_reason: "insufficient_credits",
    });
    expect(aiFallbackOf(new ApiError("rate_limited", "busy"), 1)).toBeUndefined();
  });
});
