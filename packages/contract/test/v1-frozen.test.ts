import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { openApiV1Path } from "../src/index.ts";

/**
 * v1 is frozen (docs/decisions.md, rule 15): its clients were written against this document, so
 * nothing may change it by accident, such as an edit of a model v2 also uses. The digest is of
 * the generated document as committed. Change it only with a deliberate change of `spec/v1`,
 * and say in the commit why v1's clients are not broken by it.
 */
const frozenV1Sha256 = "b8444c344ae50578e4bfb24726b7cc9e7a98451ad998036a760f13cf065194e9";

describe("the v1 document", () => {
  it("is byte for byte the frozen one", () => {
    const digest = createHash("sha256").update(readFileSync(openApiV1Path)).digest("hex");
    expect(digest, "packages/contract/generated/openapi.v1.yaml changed; v1 is frozen").toBe(frozenV1Sha256);
  });
});
