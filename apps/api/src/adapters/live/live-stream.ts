import { setTimeout as delay } from "node:timers/promises";
import { SourceError, type SourceErrorKind } from "../../sources/source-error.ts";
import { type PublicFetch, readBodyWithin } from "../net/public-fetch.ts";
import {
  audioRendition,
  type MediaPlaylist,
  maxPlaylistChars,
  PlaylistError,
  type PlaylistSegment,
  parsePlaylist,
} from "./hls-playlist.ts";

/** What a live stream gives its reader, in order. */
export type LivePiece =
  | {
      kind: "media";
      bytes: Buffer;
      /** The playlist's media sequence number of the segment; null for a radio stream. */
      sequence: number | null;
      /** Seconds the segment declares; null for a radio stream. */
      seconds: number | null;
      /** The media may start afresh here (new timestamps, new encoding): decode it anew. */
      discontinuity: boolean;
    }
  /** Media that was not read: about `seconds` of the stream are missing before the next piece. */
  | { kind: "gap"; seconds: number; reason: "takeover" | "fell_behind" | "reconnected" };

/** How a stream that was read to its end ended: the publisher ended it, or it went silent. */
export type LiveStreamEnd = "ended" | "silent";

/** How a live stream is read. */
export interface LiveReadOptions {
  /** The public fetch: the address rule applies to the playlist, every segment and every redirect. */
  fetch: PublicFetch;
  signal: AbortSignal;
  /** Milliseconds without new media after which the stream is over (`VERBATIM_LIVE_SILENCE_SECONDS`). */
  silenceMs: number;
  /** Bytes the stream may bring per minute of media at most (`VERBATIM_LIVE_MAX_BYTES_PER_MINUTE`). */
  maxBytesPerMinute: number;
  /** Resume after this media sequence number (a session taken over): what was missed since is a `takeover` gap. */
  resumeAfter?: number | null;
  /** The stream's address afresh, when the playlist expired (403, 404, 410); null when it is over. Without one, an expired playlist ends the stream. */
  reresolve?: () => Promise<string | null>;
  /** Segments of the window read first on a new session: the live edge. Default 3. */
  edgeSegments?: number;
  /** The shortest wait between two reads of the playlist, in milliseconds. Default 500. */
  minPollMs?: number;
  now?: () => number;
}

/** Fresh addresses tried in a row, each gone as soon as it is read, before the stream is taken for over. */
const maxResolutionsInARow = 3;

/** Failures that pass: the stream's server or the way to it may answer again (the catalog's 5xxx). */
const transientKinds: ReadonlySet<SourceErrorKind> = new Set(["blocked", "failed", "timeout", "connection"]);

function isTransient(error: unknown): error is SourceError {
  return error instanceof SourceError && transientKinds.has(error.kind);
}

/** The playlist's address no longer answers: a platform's signed address expired, or the stream was taken down. */
class PlaylistGone extends Error {}

/**
 * Reads an HLS live playlist from its live edge (or after `resumeAfter`) as it grows, segment by
 * segment, until `#EXT-X-ENDLIST`, or `silenceMs` without a new segment. Segments that left the
 * window before they were read are reported as a gap. A stream that brings more than
 * `maxBytesPerMinute` per minute of media fails with `media_too_large`.
 */
export async function* readHls(first: string, options: LiveReadOptions): AsyncGenerator<LivePiece, LiveStreamEnd> {
  const now = options.now ?? Date.now;
  const rate = new ByteRate(options.maxBytesPerMinute);
  const initSections = new Map<string, Buffer>();
  let address = first;
  let next: number | null = null;
  let resumeAfter = options.resumeAfter ?? null;
  let resumeReason: "takeover" | "reconnected" = "takeover";
  let lastMediaAt = now();
  let lastFailure: unknown = null;
  let gone = 0;
  let pendingDiscontinuity = false;
  let mapInUse: string | null = null;
  for (;;) {
    options.signal.throwIfAborted();
    let playlist: MediaPlaylist;
    try {
      playlist = await loadMedia(address, options);
      lastFailure = null;
      gone = 0;
    } catch (error) {
      if (error instanceof PlaylistGone) {
        // A platform that keeps answering fresh addresses that are gone at once has taken the stream down.
        gone += 1;
        if (gone > maxResolutionsInARow) return "ended";
        if (gone > 1) await delay(Math.max(options.minPollMs ?? 500, 1_000), undefined, { signal: options.signal });
        const fresh = options.reresolve ? await options.reresolve() : null;
        if (fresh === null) return "ended";
        address = fresh;
        // A fresh address may number its segments anew: read it from its live edge.
        if (next !== null) {
          resumeAfter = next - 1;
          resumeReason = "reconnected";
        }
        next = null;
        pendingDiscontinuity = true;
        continue;
      }
      if (!isTransient(error)) throw error;
      lastFailure = error;
      // A stream that played and then could not be reached for the whole silence has gone off the air.
      if (now() - lastMediaAt > options.silenceMs) {
        if (mapInUse !== null || next !== null) return "silent";
        throw lastFailure;
      }
      await delay(Math.max(options.minPollMs ?? 500, 1_000), undefined, { signal: options.signal });
      continue;
    }
    const { segments } = playlist;
    const newest = segments.at(-1);
    if (next !== null && newest !== undefined && newest.sequence < next - 1) {
      // The numbers went back: the publisher restarted the stream. Read the new one from its edge.
      next = null;
      resumeAfter = null;
      pendingDiscontinuity = true;
    }
    if (next === null && newest !== undefined) {
      const resumeAt = resumeAfter === null ? null : resumeAfter + 1;
      const resumable = resumeAt !== null && segments.some((segment) => segment.sequence === resumeAt);
      const start =
        resumable && resumeAt !== null
          ? resumeAt
          : (segments[Math.max(0, segments.length - (options.edgeSegments ?? 3))]?.sequence ?? newest.sequence);
      if (resumeAt !== null && start > resumeAt) {
        yield { kind: "gap", seconds: (start - resumeAt) * playlist.targetDuration, reason: resumeReason };
      }
      next = start;
      resumeAfter = null;
    }
    const oldest = segments[0];
    if (next !== null && oldest !== undefined && oldest.sequence > next) {
      yield { kind: "gap", seconds: (oldest.sequence - next) * playlist.targetDuration, reason: "fell_behind" };
      next = oldest.sequence;
    }
    for (const segment of segments) {
      if (next === null || segment.sequence < next) continue;
      options.signal.throwIfAborted();
      const bytes = await fetchSegment(segment, options);
      next = segment.sequence + 1;
      if (bytes === null) {
        yield { kind: "gap", seconds: segment.duration, reason: "fell_behind" };
        continue;
      }
      rate.count(bytes.length, segment.duration, now());
      let init: Buffer = Buffer.alloc(0);
      const freshMap = playlist.initSection !== null && playlist.initSection !== mapInUse;
      if (playlist.initSection !== null && (freshMap || segment.discontinuity || pendingDiscontinuity)) {
        init = await initSection(playlist.initSection, initSections, options);
        mapInUse = playlist.initSection;
      }
      yield {
        kind: "media",
        bytes: init.length > 0 ? Buffer.concat([init, bytes]) : bytes,
        sequence: segment.sequence,
        seconds: segment.duration,
        discontinuity: segment.discontinuity || pendingDiscontinuity || freshMap,
      };
      pendingDiscontinuity = false;
      lastMediaAt = now();
    }
    if (playlist.ended) return "ended";
    if (now() - lastMediaAt > options.silenceMs) return "silent";
    // Half the target duration, as players poll a live playlist (RFC 8216, 6.3.4, asks at least that between unchanged reloads).
    const wait = Math.max(options.minPollMs ?? 500, Math.min(10_000, (playlist.targetDuration * 1000) / 2));
    await delay(wait, undefined, { signal: options.signal });
  }
}

/**
 * Reads an Icecast (or SHOUTcast, or any endless HTTP audio) stream as its body arrives. A
 * connection that drops is made again, the time it was down reported as a gap. The stream is
 * over when its server ends the body and has nothing on the next connection (a 4xx, or an empty
 * body), when it cannot be reached again for `silenceMs`, or after `silenceMs` without a byte.
 */
export async function* readIcecast(
  address: string,
  options: LiveReadOptions,
): AsyncGenerator<LivePiece, LiveStreamEnd> {
  const now = options.now ?? Date.now;
  const rate = new ByteRate(options.maxBytesPerMinute);
  let lastMediaAt = now();
  let receivedAny = false;
  let reconnecting = false;
  for (;;) {
    options.signal.throwIfAborted();
    const silence = new AbortController();
    let silent = false;
    let timer: NodeJS.Timeout | undefined;
    const restartTimer = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        silent = true;
        silence.abort();
      }, options.silenceMs);
    };
    restartTimer();
    let received = false;
    try {
      const response = await options.fetch(address, {
        headers: { "icy-metadata": "0" },
        signal: AbortSignal.any([options.signal, silence.signal]),
      });
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        // A station that played, and now answers that it has nothing, went off the air.
        if (receivedAny && response.status < 500) return "ended";
        throw unavailable(address, response.status);
      }
      if (reconnecting) yield { kind: "gap", seconds: (now() - lastMediaAt) / 1000, reason: "reconnected" };
      reconnecting = false;
      for await (const chunk of response.body ?? []) {
        const bytes = Buffer.from(chunk as Uint8Array);
        restartTimer();
        rate.count(bytes.length, null, now());
        received = true;
        receivedAny = true;
        lastMediaAt = now();
        yield { kind: "media", bytes, sequence: null, seconds: null, discontinuity: false };
      }
    } catch (error) {
      options.signal.throwIfAborted();
      if (silent) return "silent";
      // A connection that drops mid-body fails with no source's kind: it is made again too.
      const transient = !(error instanceof SourceError) || isTransient(error);
      if (!transient || !receivedAny) throw error;
      if (now() - lastMediaAt > options.silenceMs) return "silent";
      reconnecting = true;
      await delay(1_000, undefined, { signal: options.signal });
      continue;
    } finally {
      clearTimeout(timer);
    }
    if (!received) return "ended";
    reconnecting = true;
  }
}

/** Reads the media playlist at the address, following a master playlist to its audio rendition. */
async function loadMedia(address: string, options: LiveReadOptions): Promise<MediaPlaylist> {
  let current = address;
  for (let hop = 0; hop < 2; hop++) {
    const text = await fetchText(current, options);
    let parsed: ReturnType<typeof parsePlaylist>;
    try {
      parsed = parsePlaylist(text, current);
    } catch (error) {
      if (error instanceof PlaylistError) throw new SourceError("invalid_input", `${current}: ${error.message}`);
      throw error;
    }
    if (parsed.kind === "media") return parsed;
    current = audioRendition(parsed);
  }
  throw new SourceError("invalid_input", `${address} leads from master playlist to master playlist.`);
}

async function fetchText(address: string, options: LiveReadOptions): Promise<string> {
  const response = await options.fetch(address, { signal: options.signal });
  if ([403, 404, 410].includes(response.status)) {
    await response.body?.cancel().catch(() => undefined);
    throw new PlaylistGone(`${address} answered ${response.status}`);
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw unavailable(address, response.status);
  }
  const url = new URL(address);
  const body = await readBodyWithin(
    response,
    url,
    maxPlaylistChars,
    () => new SourceError("too_large", `The playlist at ${address} is larger than ${maxPlaylistChars} bytes.`),
  );
  return body.toString("utf8");
}

/** A segment's bytes; null when it is gone (it left the window before it was read). */
async function fetchSegment(segment: PlaylistSegment, options: LiveReadOptions): Promise<Buffer | null> {
  const response = await options.fetch(segment.uri, { signal: options.signal });
  if (response.status === 404 || response.status === 410) {
    await response.body?.cancel().catch(() => undefined);
    return null;
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw unavailable(segment.uri, response.status);
  }
  return readBodyWithin(response, new URL(segment.uri), options.maxBytesPerMinute, () =>
    tooManyBytes(options.maxBytesPerMinute),
  );
}

async function initSection(uri: string, cache: Map<string, Buffer>, options: LiveReadOptions): Promise<Buffer> {
  const cached = cache.get(uri);
  if (cached) return cached;
  const bytes = await fetchSegment({ sequence: -1, uri, duration: 0, discontinuity: false }, options);
  if (bytes === null) throw new SourceError("unavailable", `The stream's initialisation section ${uri} is gone.`);
  cache.set(uri, bytes);
  return bytes;
}

function unavailable(address: string, status: number): SourceError {
  return status >= 500
    ? new SourceError("failed", `${address} answered ${status}. Retry with backoff.`, { advice: null })
    : new SourceError("unavailable", `${address} answered ${status}: the stream cannot be read.`);
}

function tooManyBytes(maxBytesPerMinute: number): SourceError {
  return new SourceError(
    "media_too_large",
    `The stream brings more than ${Math.round(maxBytesPerMinute / 1024 / 1024)} MiB per minute, the most a live session reads (VERBATIM_LIVE_MAX_BYTES_PER_MINUTE).`,
  );
}

/**
 * Bytes over the last minute of media: of segments (by their declared seconds), or of a radio
 * stream (by the clock). More than the ceiling within any such minute fails the stream.
 */
class ByteRate {
  private readonly window: { bytes: number; at: number }[] = [];
  private mediaSeconds = 0;
  private total = 0;

  constructor(private readonly maxBytesPerMinute: number) {}

  count(bytes: number, seconds: number | null, nowMs: number): void {
    const at = seconds === null ? nowMs / 1000 : this.mediaSeconds;
    if (seconds !== null) this.mediaSeconds += Math.max(seconds, 0.1);
    this.window.push({ bytes, at });
    this.total += bytes;
    const end = seconds === null ? at : this.mediaSeconds;
    while (this.window.length > 0 && (this.window[0]?.at ?? end) <= end - 60) {
      this.total -= this.window.shift()?.bytes ?? 0;
    }
    if (this.total > this.maxBytesPerMinute) throw tooManyBytes(this.maxBytesPerMinute);
  }
}
