import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import type { Logger } from "../../logger.ts";
import { packagePath } from "../../package-files.ts";
import { SourceError } from "../source-error.ts";
import { sourceErrorOfYtdlp, type YtdlpErrorDetails } from "./ytdlp-errors.ts";
import { defaultYtdlpExtractors } from "./ytdlp-extractors.ts";
import { profileExtractors } from "./ytdlp-platforms.ts";

export { findYtdlp, type YtdlpEngine } from "./find-ytdlp.ts";
export { defaultYtdlpExtractors } from "./ytdlp-extractors.ts";

/** The Python program the sidecar runs; shipped with the package (package.json `files`). */
export const sidecarScript = packagePath("src/sources/ytdlp/sidecar.py");

/** The yt-dlp release the project's environment holds (scripts/ytdlp-env.mjs, the Dockerfile). */
export const ytdlpRequirements = packagePath("src/sources/ytdlp/requirements.txt");

/** Calls a sidecar runs at once unless told otherwise. */
export const defaultYtdlpConcurrency = 8;

/** One account's share of `concurrency` calls unless told otherwise: a quarter, at least 1. */
export function defaultYtdlpAccountConcurrency(concurrency: number): number {
  return Math.max(1, Math.floor(concurrency / 4));
}

export interface YtdlpSidecarOptions {
  /** The Python interpreter that imports yt_dlp (`findYtdlp`). */
  python: string;
  /** Put first on PYTHONPATH: a yt-dlp zipapp (`findYtdlp`). */
  pythonPath?: string;
  /**
   * The extractors allowed, by `ie_key()`; `defaultYtdlpExtractors` when left out. The profile
   * extractors among them (`ytdlpPlatforms`) serve `listEntries` only, the others the item calls.
   */
  extractors?: readonly string[];
  /** PEM certificates yt-dlp trusts besides the system's roots (a TLS-intercepting egress proxy's CA). */
  caFile?: string;
  /** yt-dlp's own timeout for each socket operation; 20 s when left out. */
  socketTimeoutSeconds?: number;
  logger: Logger;
  /** Calls sent to the process at once; later ones wait their turn. `defaultYtdlpConcurrency` when left out. */
  maxConcurrentCalls?: number;
  /**
   * Calls of one account sent to the process at once, so that one account's slow calls never hold
   * every one; `defaultYtdlpAccountConcurrency` when left out.
   */
  maxCallsPerAccount?: number;
}

export interface YtdlpCallOptions {
  /** The egress proxy for this call's every request (`http://call-<id>:x@127.0.0.1:<port>`); "" for none. */
  proxy?: string;
  /** Milliseconds from the call until it fails with SourceError("timeout"), waiting for a turn included. */
  deadlineMs: number;
  signal?: AbortSignal;
  /** The account the call is for: the accounts waiting take turns. Calls without one share a turn. */
  account?: string;
}

/** yt-dlp's info dict (`yt-dlp -J`), sanitized; the fields Verbatim reads are typed. */
export interface YtdlpInfo {
  id?: string;
  title?: string;
  extractor_key?: string;
  webpage_url?: string;
  duration?: number | null;
  live_status?: "is_live" | "is_upcoming" | "was_live" | "not_live" | "post_live" | null;
  subtitles?: Record<string, YtdlpSubtitle[]>;
  automatic_captions?: Record<string, YtdlpSubtitle[]>;
  formats?: Record<string, unknown>[];
  [field: string]: unknown;
}

export interface YtdlpSubtitle {
  url?: string;
  ext?: string;
  name?: string;
  [field: string]: unknown;
}

export interface YtdlpDownload {
  /** The media file, in the directory asked for. */
  path: string;
  bytes: number;
  info: YtdlpInfo;
}

/** A page of a profile's entries, each unresolved: what the listing itself says of it. */
export interface YtdlpEntries {
  id?: string | null;
  title?: string | null;
  entries: YtdlpInfo[];
}

export interface YtdlpVersion {
  version: string;
  /** The allowed extractors this yt-dlp has. */
  extractors: string[];
}

type Operation = "version" | "extract" | "fetch_text" | "fetch_texts" | "download_audio" | "list_entries";

interface Call {
  id: number;
  account: string;
  request: Record<string, unknown> & { op: Operation };
  /** How many processes it was sent to. */
  sends: number;
  settled: boolean;
  resolve(result: unknown): void;
  reject(error: unknown): void;
}

interface Answer {
  id?: number;
  event?: string;
  ok?: boolean;
  result?: unknown;
  error?: YtdlpErrorDetails;
  warnings?: string[];
  version?: string;
  extractors?: string[];
  refused?: string[];
  unknown?: string[];
}

interface Running {
  child: ChildProcessWithoutNullStreams;
  ready: boolean;
  /** Set when this client ends it (recycling, close): its exit is no crash. */
  retiring: boolean;
  exited: Promise<unknown>;
  /** Calls given up on whose Python thread may still be working. */
  abandoned: Set<number>;
}

/** One account's calls: those waiting, in order, and how many are sent. */
interface AccountTurns {
  waiting: Call[];
  sent: number;
  /** When it last had a call sent, counted in calls the sidecar sent; -1 when never since it had none. */
  lastTurn: number;
}

/** The sidecar ended before it said it was ready: no yt-dlp to import, a bad interpreter. */
export class YtdlpStartError extends Error {
  /**
   * Why, in a line fit for an operator's health check: the last line Python wrote
   * (`ModuleNotFoundError: No module named 'yt_dlp'`), or how it ended. The message adds the
   * interpreter's path and the traceback, for the log only.
   */
  readonly reason: string;

  constructor(message: string, reason: string) {
    super(message);
    this.name = "YtdlpStartError";
    this.reason = reason;
  }
}

const stderrLinesKept = 20;

/**
 * One warm yt-dlp process (sidecar.py) answering many calls at once, started on the first call.
 * Each call is independent: its own deadline, its own proxy, its own error. Each account has at
 * most its share of the calls sent at once; when a call ends, the waiting account with the fewest
 * calls sent goes next, and of those the one whose last turn was longest ago. A process that dies
 * is started again and the calls it held are sent once more (every operation is safe to repeat).
 * A call past its deadline is answered with SourceError("timeout") at once, but its Python thread
 * cannot be stopped; so once such threads exist and nothing else runs, the process is replaced.
 */
export class YtdlpSidecar {
  readonly #options: Required<Omit<YtdlpSidecarOptions, "pythonPath" | "caFile">> &
    Pick<YtdlpSidecarOptions, "pythonPath" | "caFile">;
  readonly #logger: Logger;
  #running: Running | undefined;
  readonly #sent = new Map<number, Call>();
  /** The accounts with calls waiting or sent; an account with neither is removed. */
  readonly #accounts = new Map<string, AccountTurns>();
  #turns = 0;
  #nextId = 1;
  #closed = false;

  constructor(options: YtdlpSidecarOptions) {
    const maxConcurrentCalls = options.maxConcurrentCalls ?? defaultYtdlpConcurrency;
    this.#options = {
      extractors: defaultYtdlpExtractors,
      socketTimeoutSeconds: 20,
      ...options,
      maxConcurrentCalls,
      maxCallsPerAccount: options.maxCallsPerAccount ?? defaultYtdlpAccountConcurrency(maxConcurrentCalls),
    };
    this.#logger = options.logger.child({ component: "ytdlp" });
  }

  /** The process id of the running sidecar, if one runs. */
  get pid(): number | undefined {
    return this.#running?.child.pid;
  }

  /** yt-dlp's info dict for a URL, as `yt-dlp -J` prints it. */
  extract(url: string, options: YtdlpCallOptions): Promise<YtdlpInfo> {
    return this.#call({ op: "extract", url, proxy: options.proxy }, options) as Promise<YtdlpInfo>;
  }

  /** A subtitle file's text, through the same proxy as the extraction; `too_large` beyond `maxBytes`. */
  async fetchText(url: string, options: YtdlpCallOptions & { maxBytes: number }): Promise<string> {
    const { text } = (await this.#call(
      { op: "fetch_text", url, proxy: options.proxy, max_bytes: options.maxBytes },
      options,
    )) as { text: string };
    return text;
  }

  /**
   * Files of one origin (an HLS playlist's pieces), read in turn over one connection that is kept
   * open between them; `too_large` once they pass `maxBytes` together. Any answer but 200 fails.
   */
  async fetchTexts(urls: readonly string[], options: YtdlpCallOptions & { maxBytes: number }): Promise<string[]> {
    const { texts } = (await this.#call(
      { op: "fetch_texts", urls, proxy: options.proxy, max_bytes: options.maxBytes },
      options,
    )) as { texts: string[] };
    return texts;
  }

  /**
   * Extracts the URL afresh (signed media addresses expire) and downloads its best audio-only
   * format, else its smallest format with sound, into `directory`, as served: no merging, no
   * conversion. `too_large` past `maxBytes`, whether or not the server said the size; a live
   * stream is `live_stream`.
   */
  downloadAudio(
    url: string,
    directory: string,
    options: YtdlpCallOptions & { maxBytes: number },
  ): Promise<YtdlpDownload> {
    return this.#call(
      { op: "download_audio", url, directory, proxy: options.proxy, max_bytes: options.maxBytes },
      options,
    ) as Promise<YtdlpDownload>;
  }

  /**
   * Entries `start` to `start + count` (0-based, end excluded) of a profile, newest first, each
   * unresolved: the listing's own requests only, never one per entry.
   */
  listEntries(url: string, options: YtdlpCallOptions & { start: number; count: number }): Promise<YtdlpEntries> {
    return this.#call(
      { op: "list_entries", url, proxy: options.proxy, start: options.start, count: options.count },
      options,
    ) as Promise<YtdlpEntries>;
  }

  /** yt-dlp's version and the allowed extractors it has. */
  version(options: Partial<YtdlpCallOptions> = {}): Promise<YtdlpVersion> {
    return this.#call({ op: "version" }, { deadlineMs: 30_000, ...options }) as Promise<YtdlpVersion>;
  }

  /** Fails the calls not answered yet and ends the process. */
  async close(): Promise<void> {
    this.#closed = true;
    const closed = new Error("The yt-dlp sidecar was closed");
    const waiting = [...this.#accounts.values()].flatMap((turns) => turns.waiting);
    for (const call of [...waiting, ...this.#sent.values()]) this.#settle(call, closed);
    await this.#retire();
  }

  #call(request: Call["request"], options: YtdlpCallOptions): Promise<unknown> {
    if (this.#closed) return Promise.reject(new Error("The yt-dlp sidecar was closed"));
    options.signal?.throwIfAborted();
    return new Promise((resolve, reject) => {
      const call: Call = {
        id: this.#nextId++,
        account: options.account ?? "",
        request,
        sends: 0,
        settled: false,
        resolve,
        reject,
      };
      const timer = setTimeout(
        () => this.#giveUp(call, new SourceError("timeout", `yt-dlp did not answer within ${options.deadlineMs} ms.`)),
        options.deadlineMs,
      );
      const onAbort = () => this.#giveUp(call, options.signal?.reason);
      options.signal?.addEventListener("abort", onAbort, { once: true });
      call.resolve = (result) => {
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", onAbort);
        resolve(result);
      };
      call.reject = (error) => {
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", onAbort);
        reject(error);
      };
      this.#turnsOf(call.account).waiting.push(call);
      this.#sendWaiting();
    });
  }

  #turnsOf(account: string): AccountTurns {
    let turns = this.#accounts.get(account);
    if (!turns) {
      turns = { waiting: [], sent: 0, lastTurn: -1 };
      this.#accounts.set(account, turns);
    }
    return turns;
  }

  #sendWaiting(): void {
    while (this.#sent.size < this.#options.maxConcurrentCalls) {
      const turns = this.#nextTurn();
      const call = turns?.waiting.shift();
      if (!turns || !call) return;
      turns.sent += 1;
      turns.lastTurn = this.#turns++;
      this.#sent.set(call.id, call);
      this.#send(call);
    }
  }

  /** Of the accounts below their share with calls waiting, the one with the fewest sent, then the longest since its last turn. */
  #nextTurn(): AccountTurns | undefined {
    let next: AccountTurns | undefined;
    for (const turns of this.#accounts.values()) {
      if (turns.waiting.length === 0 || turns.sent >= this.#options.maxCallsPerAccount) continue;
      if (!next || turns.sent < next.sent || (turns.sent === next.sent && turns.lastTurn < next.lastTurn)) {
        next = turns;
      }
    }
    return next;
  }

  #send(call: Call): void {
    const running = this.#running ?? this.#start();
    call.sends += 1;
    running.child.stdin.write(`${JSON.stringify({ id: call.id, ...call.request })}\n`);
  }

  #settle(call: Call, error: unknown, result?: unknown): void {
    if (call.settled) return;
    call.settled = true;
    const turns = this.#turnsOf(call.account);
    if (this.#sent.delete(call.id)) turns.sent -= 1;
    const waitingAt = turns.waiting.indexOf(call);
    if (waitingAt !== -1) turns.waiting.splice(waitingAt, 1);
    if (turns.sent === 0 && turns.waiting.length === 0) this.#accounts.delete(call.account);
    if (error === undefined) call.resolve(result);
    else call.reject(error);
    if (!this.#closed) this.#sendWaiting();
    this.#recycleIfIdle();
  }

  #giveUp(call: Call, error: unknown): void {
    if (call.settled) return;
    const running = this.#running;
    if (this.#sent.has(call.id) && running) {
      running.abandoned.add(call.id);
      // A download stops at its next block; an extraction runs on until its socket times out.
      running.child.stdin.write(`${JSON.stringify({ op: "cancel", id: call.id })}\n`);
    }
    this.#settle(call, error);
  }

  /** A process whose only calls are abandoned ones is replaced, to free their threads and sockets. */
  #recycleIfIdle(): void {
    const running = this.#running;
    if (!running || running.abandoned.size === 0 || this.#accounts.size > 0) return;
    this.#logger.info({ abandonedCalls: running.abandoned.size }, "recycling the yt-dlp sidecar");
    void this.#retire();
  }

  async #retire(): Promise<void> {
    const running = this.#running;
    if (!running) return;
    this.#running = undefined;
    running.retiring = true;
    running.child.stdin.end();
    running.child.kill("SIGKILL");
    await running.exited;
  }

  #start(): Running {
    const { python, pythonPath, extractors, socketTimeoutSeconds, caFile } = this.#options;
    const args = [
      sidecarScript,
      "--extractors",
      extractors.join(","),
      "--list-extractors",
      extractors.filter((key) => profileExtractors.has(key)).join(","),
      "--socket-timeout",
      String(socketTimeoutSeconds),
      ...(caFile ? ["--ca-file", caFile] : []),
    ];
    const env: NodeJS.ProcessEnv = { ...process.env, PYTHONUNBUFFERED: "1" };
    if (pythonPath) env.PYTHONPATH = [pythonPath, process.env.PYTHONPATH].filter(Boolean).join(":");
    const child = spawn(python, args, { env, stdio: ["pipe", "pipe", "pipe"] });
    const running: Running = {
      child,
      ready: false,
      retiring: false,
      exited: once(child, "close").catch(() => undefined),
      abandoned: new Set(),
    };
    this.#running = running;
    const stderrTail: string[] = [];

    child.on("error", (error) => this.#logger.error({ err: error, python }, "the yt-dlp sidecar could not start"));
    // A process that died under a write answers EPIPE; its exit is handled below.
    child.stdin.on("error", () => undefined);
    createInterface({ input: child.stderr, crlfDelay: Number.POSITIVE_INFINITY }).on("line", (line) => {
      stderrTail.push(line);
      if (stderrTail.length > stderrLinesKept) stderrTail.shift();
      this.#logger.warn({ pid: child.pid }, `yt-dlp: ${line}`);
    });
    createInterface({ input: child.stdout, crlfDelay: Number.POSITIVE_INFINITY }).on("line", (line) =>
      this.#read(running, line),
    );
    void running.exited.then(() => this.#exited(running, child.exitCode, child.signalCode, stderrTail));
    return running;
  }

  #read(running: Running, line: string): void {
    let answer: Answer;
    try {
      answer = JSON.parse(line);
    } catch {
      this.#logger.error({ line: line.slice(0, 500) }, "the yt-dlp sidecar wrote a line that is not JSON");
      return;
    }
    if (answer.event === "ready") {
      running.ready = true;
      this.#logger.info(
        { pid: running.child.pid, version: answer.version, extractors: answer.extractors },
        "yt-dlp sidecar ready",
      );
      if (answer.refused?.length) this.#logger.warn({ refused: answer.refused }, "yt-dlp extractors refused");
      if (answer.unknown?.length) this.#logger.warn({ unknown: answer.unknown }, "yt-dlp has no such extractors");
      return;
    }
    if (answer.id === undefined) return;
    running.abandoned.delete(answer.id);
    const call = this.#sent.get(answer.id);
    if (answer.warnings?.length) {
      this.#logger.warn({ op: call?.request.op, url: call?.request.url, warnings: answer.warnings }, "yt-dlp warnings");
    }
    if (!call) {
      this.#recycleIfIdle();
      return;
    }
    if (answer.ok) {
      this.#settle(call, undefined, answer.result);
      return;
    }
    // A failed exchange reaches the client in plain words (sourceErrorOfYtdlp); its own text is for the operator.
    this.#logger.info({ op: call.request.op, error: answer.error }, "yt-dlp call failed");
    this.#settle(call, sourceErrorOfYtdlp(answer.error as YtdlpErrorDetails));
  }

  #exited(running: Running, code: number | null, signal: NodeJS.Signals | null, stderrTail: string[]): void {
    if (running.retiring) return;
    if (this.#running === running) this.#running = undefined;
    const held = [...this.#sent.values()];
    if (!running.ready) {
      this.#logger.error({ code, signal, stderr: stderrTail }, "the yt-dlp sidecar ended before it was ready");
      const ending = signal ?? `exit ${code}`;
      const error = new YtdlpStartError(
        `The yt-dlp sidecar (${this.#options.python}) ended before it was ready (${ending}): ${stderrTail.join("\n")}`,
        stderrTail.findLast((line) => line.trim().length > 0)?.trim() ?? `it ended with ${ending}`,
      );
      for (const call of held) this.#settle(call, error);
      return;
    }
    this.#logger.error({ code, signal, callsHeld: held.length }, "the yt-dlp sidecar ended; starting it again");
    for (const call of held) {
      if (call.sends >= 2) {
        this.#settle(call, new SourceError("unparseable", "yt-dlp crashed twice while answering this request."));
      } else {
        this.#send(call);
      }
    }
  }
}

/** A sidecar for `findYtdlp`'s engine, or for any interpreter given as `python`. */
export function createYtdlpSidecar(options: YtdlpSidecarOptions): YtdlpSidecar {
  return new YtdlpSidecar(options);
}
