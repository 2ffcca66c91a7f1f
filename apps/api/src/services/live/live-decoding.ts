import { once } from "node:events";
import { PassThrough } from "node:stream";
import type { LiveRecognition, SpeechEngine, SpeechSegment } from "../../adapters/asr/index.ts";
import type { LivePiece } from "../../adapters/live/live-stream.ts";
import { decodeAudio, SAMPLE_RATE } from "../../adapters/media/decoder.ts";
import { ApiError } from "../../errors.ts";
import type { LiveOutcome } from "./live-endings.ts";

/** Samples in a piece fed to the recognizer and billed: 0.1 s, as the engine takes them. */
const pieceSamples = SAMPLE_RATE / 10;

/** A reason a run stops feeding its stream: the session ends so. */
export class SessionEnds extends Error {
  constructor(readonly outcome: LiveOutcome) {
    super(outcome.kind === "ended" ? outcome.reason : outcome.failure.message);
  }
}

/** Where the reader stood at the last write: the newest media fed, and where it ends on the timeline. */
export interface FedPosition {
  sequence: number | null;
  end: number;
}

/** What a decoding tells the session it runs for: samples heard and paid, segments ended, the partial. */
export interface DecodedSamples {
  pay(samples: number): Promise<void>;
  heard(samples: number, fed: FedPosition): void;
  commit(segments: SpeechSegment[], offset: number): Promise<void>;
  partial(recognition: LiveRecognition, offset: number): Promise<void>;
}

/**
 * One run of ffmpeg and the recognizer between two breaks of the timeline (a gap, a
 * discontinuity): media written in, samples recognised as they come out, 0.1 s at a time, each
 * piece paid for before it is recognised. A reason to stop found while recognising (the end of
 * the balance, `max_minutes`, a decoder that fails) halts the whole run through `onHalt`.
 */
export class Decoding {
  private readonly input = new PassThrough();
  private readonly decoder = new AbortController();
  private readonly recognition: LiveRecognition;
  private readonly recognised: Promise<void>;
  private samples = 0;
  /** Where the media written so far ends on the timeline, by its declared durations. */
  private fedEnd: number;
  private fedSequence: number | null;

  constructor(
    private readonly stream: DecodedSamples,
    engine: SpeechEngine,
    private readonly offset: number,
    fedSequence: number | null,
    private readonly halt: AbortSignal,
    private readonly onHalt: (reason: unknown) => void,
  ) {
    if (!engine.startLive) {
      throw new ApiError("audio_ineligible", "This server's speech engine does not transcribe live streams.");
    }
    this.recognition = engine.startLive();
    this.fedEnd = offset;
    this.fedSequence = fedSequence;
    const decoded = decodeAudio(this.input, { signal: this.decoder.signal, live: true });
    this.recognised = this.recognise(decoded.samples);
    // Its failure halts the run through `onHalt`; the run reads it again where it settles the decoding.
    this.recognised.catch(() => undefined);
  }

  async write(piece: Extract<LivePiece, { kind: "media" }>): Promise<void> {
    if (!this.input.write(piece.bytes)) {
      await Promise.race([once(this.input, "drain", { signal: this.halt }), this.recognised]);
    }
    this.halt.throwIfAborted();
    this.fedSequence = piece.sequence ?? this.fedSequence;
    this.fedEnd = piece.seconds === null ? this.end() : this.fedEnd + piece.seconds;
  }

  /** Ends the input and waits until what it held is recognised and committed. */
  async finish(): Promise<void> {
    if (!this.input.writableEnded) this.input.end();
    await this.recognised;
  }

  /** As `finish`, answering the reason to end the session that recognition met, if it met one. */
  async settle(): Promise<SessionEnds | null> {
    try {
      await this.finish();
      return null;
    } catch (error) {
      if (error instanceof SessionEnds) return error;
      throw error;
    }
  }

  abort(): void {
    this.decoder.abort();
    this.input.destroy();
  }

  /** Where the audio recognised so far ends on the timeline. */
  end(): number {
    return this.offset + this.samples / SAMPLE_RATE;
  }

  private async recognise(samples: AsyncIterable<Float32Array>): Promise<void> {
    let carried = new Float32Array(0);
    try {
      for await (const chunk of samples) {
        // ffmpeg's output waiting in the pipe is read without the event loop turning: let timers (the
        // lease's renewal) and sockets run between chunks, however far behind the live edge this is.
        await new Promise((resolve) => setImmediate(resolve));
        const all = carried.length > 0 ? joined(carried, chunk) : chunk;
        let at = 0;
        for (; at + pieceSamples <= all.length; at += pieceSamples) {
          if (!(await this.hear(all.subarray(at, at + pieceSamples)))) return;
        }
        carried = all.slice(at);
      }
      if (carried.length > 0 && !(await this.hear(carried))) return;
    } catch (error) {
      if (error instanceof SessionEnds) {
        // The audio already fed is paid for: the utterance in progress keeps its words.
        await this.stream.commit(this.recognition.finish(), this.offset);
      } else {
        this.abort();
      }
      if (!this.halt.aborted) this.onHalt(error);
      throw error;
    }
    await this.stream.commit(this.recognition.finish(), this.offset);
  }

  /** Pays for, then recognises, one piece; false when the run was halted for a reason other than ending the session. */
  private async hear(piece: Float32Array): Promise<boolean> {
    if (this.halt.aborted && !(this.halt.reason instanceof SessionEnds)) return false;
    await this.stream.pay(piece.length);
    const ended = this.recognition.accept(piece);
    this.samples += piece.length;
    this.stream.heard(piece.length, { sequence: this.fedSequence, end: Math.max(this.fedEnd, this.end()) });
    if (ended.length > 0) await this.stream.commit(ended, this.offset);
    else await this.stream.partial(this.recognition, this.offset);
    return true;
  }
}

function joined(first: Float32Array, second: Float32Array): Float32Array {
  const all = new Float32Array(first.length + second.length);
  all.set(first);
  all.set(second, first.length);
  return all;
}
