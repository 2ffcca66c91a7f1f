import { toSrt, toVtt } from "@verbatim/sdk";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ingestedText } from "./segment-text.ts";

const anyText = fc.string({ unit: "binary", maxLength: 60 });
/** What no kept text holds: a control character but the tab, or a line separator. */
const unkept = /[^\P{Cc}\t]|[\u2028\u2029]/u;

describe("ingestedText", () => {
  it("leaves no control character but the tab, and no line separator", () => {
    fc.assert(
      fc.property(anyText, (text) => {
        expect(ingestedText(text)).not.toMatch(unkept);
      }),
    );
  });

  it("keeps text without them as it is", () => {
    fc.assert(
      fc.property(anyText, (text) => {
        fc.pre(!unkept.test(text));
        expect(ingestedText(text)).toBe(text);
      }),
    );
  });

  it("gives the subtitles the writers give of the text as fetched, so transcripts kept before it read the same", () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const segment = { start: 0, duration: 1 };
        expect(toSrt([{ ...segment, text: ingestedText(text) }])).toBe(toSrt([{ ...segment, text }]));
        expect(toVtt([{ ...segment, text: ingestedText(text) }])).toBe(toVtt([{ ...segment, text }]));
      }),
    );
  });

  it("writes each line separator as a space and removes the other controls", () => {
    expect(ingestedText("a\u0085b\u001cc\u2028d\r\ne\u0000f\u001b[2Jg\u009bh\ti")).toBe("a b c d  ef[2Jgh\ti");
  });
});
