import { describe, expect, it } from "vitest";
import { ListingRegistry } from "./listing-registry.ts";
import type { Listing, ListingRequest, ListingSource } from "./listing-source.ts";
import { SourceError } from "./source-error.ts";

/** A source that claims inputs starting with `prefix`, refusing those that end in `!`. */
function claiming(prefix: string, searches: string[] = []): ListingSource & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    accepts: { channel: `a ${prefix} channel` },
    searchPlatforms: searches,
    match(request: ListingRequest) {
      const input =
        request.kind === "channel"
          ? request.channel
          : request.kind === "playlist"
            ? request.playlist
            : (request.platform ?? "");
      asked.push(input);
      if (!input.startsWith(prefix)) return null;
      if (input.endsWith("!")) return new SourceError("item_not_list", `${input} is an item`);
      return { label: `${prefix} list` } as unknown as Listing;
    },
  };
}

describe("ListingRegistry", () => {
  it("answers the first source that claims the input, and asks none after it", () => {
    const first = claiming("a");
    const second = claiming("ab");
    const registry = new ListingRegistry([first, second]);
    expect(registry.match({ kind: "channel", channel: "abc" })).toEqual({ listing: { label: "a list" } });
    expect(second.asked).toEqual([]);
  });

  it("answers a claiming source's refusal, without asking the sources after it", () => {
    const later = claiming("x");
    const found = new ListingRegistry([claiming("x"), later]).match({ kind: "channel", channel: "x!" });
    expect("refusal" in found && found.refusal.kind).toBe("item_not_list");
    expect(later.asked).toEqual([]);
  });

  it("says what each source would have taken when none claims the input", () => {
    const registry = new ListingRegistry([claiming("a"), claiming("b")]);
    expect(registry.match({ kind: "channel", channel: "c" })).toEqual({
      unmatched: { accepted: ["a a channel", "a b channel"] },
    });
  });

  it("lists the search platforms of its sources in order", () => {
    expect(
      new ListingRegistry([claiming("a", ["youtube"]), claiming("b"), claiming("c", ["apple"])]).searchPlatforms(),
    ).toEqual(["youtube", "apple"]);
  });
});
