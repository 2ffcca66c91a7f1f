import { readFileSync } from "node:fs";
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** A request the fake received, for assertions on what the adapter sent. */
export interface LoggedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  /** The JSON body of a POST, parsed. */
  body: Record<string, unknown> | null;
  headers: IncomingHttpHeaders;
}

/** What the fake answers. */
export type FakeReply =
  /**
   * `delayMs`: answers that much later, as a slow upstream does. `heldUntil`: answers once it
   * settles, so a test decides when a slow upstream answers instead of racing a clock.
   * `trickle`: sends the body a piece at a time, as a media server that holds a download open.
   */
  | {
      status?: number;
      body: string | Buffer;
      contentType?: string;
      delayMs?: number;
      heldUntil?: Promise<unknown>;
      trickle?: Trickle;
    }
  /** Never answers: the client's timeout must fire. */
  | { hang: true }
  /** Closes the connection without an answer. */
  | { reset: true };

/** A body sent `pieceBytes` at a time, one piece every `intervalMs`. */
export interface Trickle {
  pieceBytes: number;
  intervalMs: number;
}

interface Rule {
  method: string;
  path: string;
  matches: (request: LoggedRequest) => boolean;
  reply: FakeReply | ((request: LoggedRequest) => FakeReply);
  /** Answers this many times, then falls through to older rules; unlimited when absent. */
  remaining?: number;
}

const fixturesRoot = new URL("../fixtures/youtube/", import.meta.url);

/** A fixture file's text, by its path under `fixtures/youtube/`. */
export function fixture(path: string): string {
  return readFileSync(new URL(path, fixturesRoot), "utf8");
}

/** The recorded answer of a NewPipeExtractor mock (`{request, response: {responseCode, responseBody}}`). */
export function newpipeRecording(path: string): { status: number; body: string } {
  const exchange = JSON.parse(fixture(`newpipe-extractor/${path}`)) as {
    response: { responseCode: number; responseBody: string };
  };
  return { status: exchange.response.responseCode, body: exchange.response.responseBody };
}

/** The InnerTube call a NewPipe recording made: its endpoint (`browse`, `search`, `navigation/resolve_url`, ...) and JSON body. */
export function newpipeRequest(path: string): { endpoint: string; body: Record<string, unknown> } {
  const exchange = JSON.parse(fixture(`newpipe-extractor/${path}`)) as {
    request: { url: string; dataToSend?: number[] };
  };
  const endpoint = new URL(exchange.request.url).pathname.replace(/^\/youtubei\/v1\//, "");
  const body = exchange.request.dataToSend
    ? (JSON.parse(Buffer.from(exchange.request.dataToSend).toString("utf8")) as Record<string, unknown>)
    : {};
  return { endpoint, body };
}

/** The body fields a recorded InnerTube request is told apart by; the rest (`context`) varies per client. */
const identifyingFields = ["browseId", "params", "continuation", "query", "url", "videoId"] as const;

/** The ids of the videos `serveRecordedVideos` serves. */
export const recordedVideos = {
  captioned: "GJLlxj_dtq8",
  json3Captioned: "F1xioXWb8CY",
  takenDown: "authoredNW1",
} as const;

/**
 * A loopback stand-in for www.youtube.com: answers InnerTube calls (`POST /youtubei/v1/<endpoint>`)
 * by their path and body fields and caption downloads (`GET /api/timedtext`) by `v`, `lang` and
 * `kind`, never by signatures or expiry. Newer rules win over older ones, so a test can make
 * one call fail (429, 500, a hang, an empty body) on top of the recordings. Every request is logged.
 */
export class FakeYoutube {
  readonly requests: LoggedRequest[] = [];
  /** Added to every answer: the round trip of a distant upstream. */
  latencyMs = 0;
  private readonly rules: Rule[] = [];
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    readonly origin: string,
  ) {
    server.on("connection", (socket) => {
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
    });
  }

  static async start(): Promise<FakeYoutube> {
    let fake: FakeYoutube | undefined;
    const server = createServer((req, res) => {
      fake?.handle(req, res).catch((error: unknown) => {
        res.statusCode = 500;
        res.end(String(error));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    fake = new FakeYoutube(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return fake;
  }

  /** Answers `POST /youtubei/v1/<endpoint>` whose JSON body has these top-level values; a function answers each call anew. */
  innertube(endpoint: string, bodyFields: Record<string, string>, reply: Rule["reply"], times?: number): this {
    return this.rule(
      "POST",
      `/youtubei/v1/${endpoint}`,
      (request) => hasFields(request.body, bodyFields),
      reply,
      times,
    );
  }

  /** Answers `POST /youtubei/v1/<endpoint>` whose JSON body `matches` says so: a rule for a kind of call, not one call. */
  innertubeWhere(endpoint: string, matches: (body: Record<string, unknown>) => boolean, reply: FakeReply): this {
    return this.rule("POST", `/youtubei/v1/${endpoint}`, (request) => matches(request.body ?? {}), reply, undefined);
  }

  /**
   * Replays a NewPipe recording: answers the InnerTube call it made (matched by the request's
   * own `browseId`, `params`, `continuation`, `query`, `url` or `videoId`) with its recorded
   * status and body. `match` replaces those fields where youtubei.js asks differently (NewPipe
   * adds `params` to searches and playlist headers that youtubei.js does not send).
   */
  replayNewpipe(path: string, match?: Record<string, string>, times?: number): this {
    const { endpoint, body } = newpipeRequest(path);
    const recordedFields = Object.fromEntries(
      identifyingFields.flatMap((name) => (typeof body[name] === "string" ? [[name, body[name]]] : [])),
    );
    return this.innertube(endpoint, match ?? recordedFields, newpipeRecording(path), times);
  }

  /**
   * Serves the recorded videos most tests fetch: `GJLlxj_dtq8` with its manual and automatic
   * English tracks and YouTube's German translation of the manual one (`tlang=de`),
   * `F1xioXWb8CY` with an English json3 track, and `authoredNW1`, taken down.
   */
  serveRecordedVideos(): this {
    const { captioned, json3Captioned, takenDown } = recordedVideos;
    return this.player(captioned, fromFixture("youtube-transcript-api/youtube.innertube.json.static"))
      .timedtext({ v: captioned, lang: "en" }, fromFixture("authored/GJLlxj_dtq8.en.srv3.xml"))
      .timedtext({ v: captioned, lang: "en", kind: "asr" }, fromFixture("authored/GJLlxj_dtq8.en-asr.srv3.xml"))
      .timedtext({ v: captioned, lang: "en", tlang: "de" }, fromFixture("authored/GJLlxj_dtq8.en.tlang-de.srv3.xml"))
      .player(json3Captioned, fromFixture("youtube-transcript-api/youtube_ww1_nl_en.innertube.json.static"))
      .timedtext({ v: json3Captioned, lang: "en" }, fromFixture("authored/F1xioXWb8CY.en.json3"))
      .player(takenDown, fromFixture("youtube-transcript-api/youtube_video_unavailable.innertube.json.static"));
  }

  /** Answers the player call for a video with a recorded player response. */
  player(videoId: string, reply: FakeReply, times?: number): this {
    return this.innertube("player", { videoId }, reply, times);
  }

  /**
   * Answers `GET /api/timedtext` for a video's track (`kind` is `asr` for automatic captions),
   * or with `tlang`, for YouTube's translation of that track: a request with a `tlang` never
   * meets an untranslated body, nor the other way round.
   */
  timedtext(match: { v: string; lang: string; kind?: string; tlang?: string }, reply: FakeReply, times?: number): this {
    return this.rule(
      "GET",
      "/api/timedtext",
      (request) =>
        request.query.get("v") === match.v &&
        request.query.get("lang") === match.lang &&
        (request.query.get("kind") ?? undefined) === match.kind &&
        (request.query.get("tlang") ?? undefined) === match.tlang,
      reply,
      times,
    );
  }

  /**
   * Answers YouTube's translation of a video's track into any language with one recording, for
   * a caller that cannot know which of the languages the player response lists a request asks for.
   */
  anyTranslation(match: { v: string; lang: string; kind?: string }, reply: FakeReply): this {
    return this.rule(
      "GET",
      "/api/timedtext",
      (request) =>
        request.query.get("v") === match.v &&
        request.query.get("lang") === match.lang &&
        (request.query.get("kind") ?? undefined) === match.kind &&
        request.query.has("tlang"),
      reply,
      undefined,
    );
  }

  /**
   * Stands in for YouTube's media servers (`GET /videoplayback`, reached through the adapter's
   * media origin): serves `bytes` for a stream's `itag`, honouring the `range` query parameter
   * the way googlevideo.com does. The recordings hold stream addresses, not the streams.
   */
  videoplayback(
    itag: number,
    bytes: Buffer,
    options: { status?: number; contentType?: string; times?: number; trickle?: Trickle } = {},
  ): this {
    return this.rule(
      "GET",
      "/videoplayback",
      (request) => request.query.get("itag") === String(itag),
      (request) => {
        const [first = 0, last] = (request.query.get("range") ?? `0-${bytes.length - 1}`).split("-").map(Number);
        if (first >= bytes.length) return { status: 416, body: Buffer.alloc(0), contentType: "text/plain" };
        return {
          status: options.status ?? 200,
          body: bytes.subarray(first, (last ?? bytes.length - 1) + 1),
          contentType: options.contentType ?? "audio/mpeg",
          ...(options.trickle ? { trickle: options.trickle } : {}),
        };
      },
      options.times,
    );
  }

  /** Requests to a path, in order. */
  requestsTo(path: string): LoggedRequest[] {
    return this.requests.filter((request) => request.path === path);
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private rule(
    method: string,
    path: string,
    matches: Rule["matches"],
    reply: Rule["reply"],
    times: number | undefined,
  ): this {
    this.rules.push({ method, path, matches, reply, ...(times === undefined ? {} : { remaining: times }) });
    return this;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    const url = new URL(req.url ?? "/", "http://fake");
    const request: LoggedRequest = {
      method: req.method ?? "GET",
      path: url.pathname,
      query: url.searchParams,
      body: raw && req.headers["content-type"]?.includes("json") ? (JSON.parse(raw) as Record<string, unknown>) : null,
      headers: req.headers,
    };
    this.requests.push(request);
    const rule = this.rules.findLast(
      (candidate) =>
        candidate.method === request.method &&
        candidate.path === request.path &&
        (candidate.remaining === undefined || candidate.remaining > 0) &&
        candidate.matches(request),
    );
    if (!rule) {
      res.writeHead(404, { "content-type": "text/plain" }).end(`no recording for ${request.method} ${request.path}`);
      return;
    }
    if (rule.remaining !== undefined) rule.remaining--;
    const reply = typeof rule.reply === "function" ? rule.reply(request) : rule.reply;
    const delayMs = this.latencyMs + ("delayMs" in reply ? (reply.delayMs ?? 0) : 0);
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    if ("heldUntil" in reply) await reply.heldUntil;
    if ("hang" in reply) return;
    if ("reset" in reply) {
      req.socket.destroy();
      return;
    }
    if (Buffer.isBuffer(reply.body)) {
      res.writeHead(reply.status ?? 200, { "content-type": reply.contentType ?? "application/octet-stream" });
      if (reply.trickle) await trickle(res, reply.body, reply.trickle);
      else res.end(reply.body);
      return;
    }
    const contentType = reply.contentType ?? (reply.body.trimStart().startsWith("<") ? "text/xml" : "application/json");
    res.writeHead(reply.status ?? 200, { "content-type": `${contentType}; charset=utf-8` }).end(reply.body);
  }
}

/** Writes `body` piece by piece until it is all sent or the client went away. */
async function trickle(res: ServerResponse, body: Buffer, { pieceBytes, intervalMs }: Trickle): Promise<void> {
  for (let offset = 0; offset < body.length && !res.destroyed; offset += pieceBytes) {
    res.write(body.subarray(offset, offset + pieceBytes));
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  if (!res.destroyed) res.end();
}

function hasFields(body: Record<string, unknown> | null, fields: Record<string, string>): boolean {
  return Object.entries(fields).every(([name, value]) => body?.[name] === value);
}

/** Serves a reply from a fixture file. */
export function fromFixture(path: string, status = 200): FakeReply {
  return { status, body: fixture(path) };
}

/**
 * The player response inside a NewPipe ANDROID `reel_item_watch` recording, as `/player` answers
 * it: that endpoint wraps the same response in `playerResponse`.
 */
export function playerFromReelRecording(path: string): FakeReply {
  const recorded = newpipeRecording(path);
  const parsed = JSON.parse(recorded.body) as { playerResponse?: unknown };
  return { status: recorded.status, body: JSON.stringify(parsed.playerResponse ?? parsed) };
}
