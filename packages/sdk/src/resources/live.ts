import type { components, operations } from "@verbatim/contract";
import { ApiError, ConnectionError } from "../api-error.ts";
import { type BareOr, bodyOf } from "../bare.ts";
import { Paginator } from "../pagination.ts";
import { ApiResource } from "../resource.ts";
import { type Result, type SuccessBody, unwrap } from "../result.ts";
import { serverSentEvents } from "../server-sent-events.ts";
import { type RequestOptions, sleep } from "../transport.ts";

/** What `POST /live` takes. */
export type LiveCreate = components["schemas"]["LiveCreate"];
/** A live session. */
export type LiveSession = components["schemas"]["LiveSession"];
/** An event of a live session, as its server-sent events carry it. */
export type LiveEvent = components["schemas"]["LiveEvent"];
/** A final segment of a live transcript. */
export type LiveSegment = components["schemas"]["LiveSegment"];
/** The query of `GET /live`. */
export type LiveListQuery = NonNullable<operations["listLiveSessions"]["parameters"]["query"]>;
/** The query of `GET /live/{id}`: which final segments come with the session. */
export type LiveSegmentQuery = NonNullable<operations["getLiveSession"]["parameters"]["query"]>;
/** A page of the account's sessions. */
export type LiveSessionPageResult = Result<SuccessBody<"listLiveSessions">>;

/** How `events` reads a session's event stream. */
export interface LiveEventOptions {
  /** Resume after this event (`seq`): every durable event after it comes, once. Default: from the first. */
  lastEventId?: number;
  /** Connect again after a dropped connection, with `Last-Event-ID`. Default: true. */
  reconnect?: boolean;
  /** Milliseconds before reconnecting; doubled after each failure in a row, up to 30 s. Default: 1,000. */
  reconnectDelay?: number;
  /** Stops reading; the iteration ends quietly. */
  signal?: AbortSignal;
}

/** The types after which a session has nothing more to say. */
const finalTypes = new Set(["live.ended", "live.failed"]);

/** Live sessions: a stream transcribed as it plays, its events read as they come. */
export class Live extends ApiResource {
  /** Starts a session. A string is the `url`. Answers 202 with the session's `events_url` and `poll_url`. */
  create(
    session: BareOr<LiveCreate>,
    options?: RequestOptions,
  ): Promise<Result<SuccessBody<"createLiveSession", 202>>> {
    return unwrap(
      this.client.raw.POST("/live", { body: bodyOf<LiveCreate>(session, "url"), ...this.callInit(options) }),
    );
  }

  /** Starts a session and answers its handle, to iterate its events and stop it. */
  async start(session: BareOr<LiveCreate>, options?: RequestOptions): Promise<LiveSessionHandle> {
    const { data } = await this.create(session, options);
    return new LiveSessionHandle(this, data);
  }

  /** The handle of a session started earlier. */
  session(sessionId: string): LiveSessionHandle {
    return new LiveSessionHandle(this, { id: sessionId });
  }

  /** One session, with its final segments after `after` (at most `limit`). */
  get(
    sessionId: string,
    query: LiveSegmentQuery = {},
    options?: RequestOptions,
  ): Promise<Result<SuccessBody<"getLiveSession">>> {
    return unwrap(
      this.client.raw.GET("/live/{sessionId}", { params: { path: { sessionId }, query }, ...this.callInit(options) }),
    );
  }

  /** One page of the account's sessions, newest first. */
  list(query: LiveListQuery = {}, options?: RequestOptions): Promise<LiveSessionPageResult> {
    return unwrap(this.client.raw.GET("/live", { params: { query }, ...this.callInit(options) }));
  }

  /** Every session of the account, newest first, page after page. */
  all(query: LiveListQuery = {}, options?: RequestOptions): Paginator<LiveSessionPageResult["data"], LiveSession> {
    const { cursor, ...rest } = query;
    return new Paginator(
      (next) => this.list({ ...rest, cursor: next }, options),
      (page) => page.sessions,
      cursor,
    );
  }

  /** Stops a session: what it transcribed is charged, and its transcript goes to the library. */
  stop(sessionId: string, options?: RequestOptions): Promise<Result<SuccessBody<"stopLiveSession">>> {
    return unwrap(
      this.client.raw.DELETE("/live/{sessionId}", { params: { path: { sessionId } }, ...this.callInit(options) }),
    );
  }

  /**
   * The session's events as they come: the durable ones once each, in order, and partials as words
   * are heard. A dropped connection is made again with `Last-Event-ID`, so nothing is missed or
   * repeated; the iteration ends after `live.ended` or `live.failed`. An error answer (an unknown
   * session, a spent allowance) is thrown.
   */
  async *events(sessionId: string, options: LiveEventOptions = {}): AsyncGenerator<LiveEvent> {
    let lastEventId = options.lastEventId;
    const firstDelay = options.reconnectDelay ?? 1_000;
    let delay = firstDelay;
    for (;;) {
      let response: Response;
      try {
        response = await this.client.openStream(`/live/${encodeURIComponent(sessionId)}/events`, {
          headers: lastEventId === undefined ? {} : { "last-event-id": String(lastEventId) },
          ...(options.signal ? { signal: options.signal } : {}),
        });
      } catch (error) {
        if (options.signal?.aborted) return;
        if (options.reconnect === false || !isDropped(error)) throw error;
        await waitOrEnd(delay, options.signal);
        delay = Math.min(30_000, delay * 2);
        continue;
      }
      try {
        for await (const message of serverSentEvents(response.body ?? emptyBody())) {
          delay = firstDelay;
          const event = JSON.parse(message.data) as LiveEvent;
          if (message.id !== null) lastEventId = Number(message.id);
          yield event;
          if (finalTypes.has(event.type)) return;
        }
      } catch (error) {
        if (options.signal?.aborted) return;
        if (options.reconnect === false) throw error;
      }
      if (options.reconnect === false) return;
      await waitOrEnd(delay, options.signal).catch(() => undefined);
      if (options.signal?.aborted) return;
    }
  }
}

/** A session to follow: its events, with reconnection, and its end. */
export class LiveSessionHandle {
  readonly id: string;
  /** The session as `POST /live` answered it, when this handle started it. */
  readonly started: LiveSession | undefined;
  /** The `seq` of the last durable event the handle's iteration gave. */
  lastEventId: number | undefined;

  constructor(
    private readonly live: Live,
    session: Pick<LiveSession, "id"> | LiveSession,
  ) {
    this.id = session.id;
    this.started = "kind" in session ? session : undefined;
  }

  /** The session's events from where this handle left off (see `Live.events`). */
  async *events(options: Omit<LiveEventOptions, "lastEventId"> = {}): AsyncGenerator<LiveEvent> {
    const from = this.lastEventId === undefined ? {} : { lastEventId: this.lastEventId };
    for await (const event of this.live.events(this.id, { ...options, ...from })) {
      if ("seq" in event) this.lastEventId = event.seq;
      yield event;
    }
  }

  [Symbol.asyncIterator](): AsyncGenerator<LiveEvent> {
    return this.events();
  }

  /** The session now, with its final segments after `after`. */
  get(query: LiveSegmentQuery = {}, options?: RequestOptions): Promise<Result<SuccessBody<"getLiveSession">>> {
    return this.live.get(this.id, query, options);
  }

  /** Stops the session. */
  stop(options?: RequestOptions): Promise<Result<SuccessBody<"stopLiveSession">>> {
    return this.live.stop(this.id, options);
  }
}

/** A failure that a new connection may cure: the network, or an answer that says to retry (429, 5xx). */
function isDropped(error: unknown): boolean {
  return error instanceof ConnectionError || (error instanceof ApiError && error.retryable);
}

async function waitOrEnd(ms: number, signal: AbortSignal | undefined): Promise<void> {
  await sleep(ms, signal).catch(() => undefined);
}

async function* emptyBody(): AsyncGenerator<Uint8Array> {}
