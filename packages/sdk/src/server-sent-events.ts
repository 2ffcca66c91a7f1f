/** One server-sent event as the wire carries it (WHATWG HTML, "Server-sent events"). */
export interface ServerSentEvent {
  /** The `event:` field; `message` when the event names none. */
  event: string;
  /** The `data:` lines, joined by newlines. */
  data: string;
  /** The `id:` field of this event; `null` when it carries none (the last id then stands). */
  id: string | null;
}

/**
 * Reads server-sent events from a body as they arrive. Comment lines (a keep-alive) are skipped,
 * an event without data is not dispatched, and a field line may end with CRLF, LF or CR.
 */
export async function* serverSentEvents(body: AsyncIterable<Uint8Array>): AsyncGenerator<ServerSentEvent> {
  const decoder = new TextDecoder();
  let buffered = "";
  let event = "";
  let data: string[] = [];
  let id: string | null = null;
  const lines = function* (final: boolean): Generator<string> {
    for (;;) {
      const end = /\r\n|\n|\r/.exec(buffered);
      // A lone CR at the end of the buffer may be the first half of a CRLF: wait for more, unless the body ended.
      if (!end || (!final && end[0] === "\r" && end.index === buffered.length - 1)) return;
      yield buffered.slice(0, end.index);
      buffered = buffered.slice(end.index + end[0].length);
    }
  };
  const read = function* (line: string): Generator<ServerSentEvent> {
    if (line === "") {
      if (data.length > 0) yield { event: event || "message", data: data.join("\n"), id };
      event = "";
      data = [];
      id = null;
      return;
    }
    if (line.startsWith(":")) return;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
    else if (field === "id" && !value.includes("\0")) id = value;
  };
  for await (const chunk of body) {
    buffered += decoder.decode(chunk, { stream: true });
    for (const line of lines(false)) yield* read(line);
  }
  buffered += decoder.decode();
  for (const line of lines(true)) yield* read(line);
}
