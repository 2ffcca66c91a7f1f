import { describe, expect, it } from "vitest";
import { serverSentEvents } from "../src/index.ts";

/** A body that arrives in the pieces given, as a network delivers it. */
async function* body(...pieces: string[]): AsyncGenerator<Uint8Array> {
  for (const piece of pieces) yield new TextEncoder().encode(piece);
}

async function all(pieces: string[]) {
  const events = [];
  for await (const event of serverSentEvents(body(...pieces))) events.push(event);
  return events;
}

describe("serverSentEvents (WHATWG HTML, server-sent events)", () => {
  it("reads events split anywhere across pieces, with CRLF, LF or CR line ends", async () => {
    expect(
      await all([
        "id: 1\r\nevent: live.started\r",
        '\ndata: {"seq":1}\r\n\r\n: keep',
        "-alive\n\nevent: live.partial\rdata: {}\r\r",
      ]),
    ).toEqual([
      { id: "1", event: "live.started", data: '{"seq":1}' },
      { id: null, event: "live.partial", data: "{}" },
    ]);
  });

  it("joins data lines, names an unnamed event message, and dispatches no event without data", async () => {
    expect(await all(["data: first\ndata:second\n\nevent: empty\n\n"])).toEqual([
      { id: null, event: "message", data: "first\nsecond" },
    ]);
  });

  it("ignores an id holding a NUL, and leaves an unfinished event at the end of the body undispatched", async () => {
    expect(await all(["id: 2\u0000\ndata: x\n\ndata: cut off"])).toEqual([{ id: null, event: "message", data: "x" }]);
  });
});
