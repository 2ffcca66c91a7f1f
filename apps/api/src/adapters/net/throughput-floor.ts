import { Transform, type TransformCallback } from "node:stream";

/** The least a download must bring in: `bytesPerSecond` on average over every window of `windowSeconds`. */
export interface ThroughputFloorSettings {
  bytesPerSecond: number;
  windowSeconds: number;
}

/**
 * A pass-through stream that fails with `tooSlow()` when, over a whole window, fewer bytes
 * passed than the floor asks: a server that trickles a byte now and then would otherwise hold a
 * worker for the whole download timeout.
 */
export class ThroughputFloor extends Transform {
  private passedInWindow = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(settings: ThroughputFloorSettings, tooSlow: () => Error) {
    super();
    const leastPerWindow = settings.bytesPerSecond * settings.windowSeconds;
    this.timer = setInterval(() => {
      if (this.passedInWindow < leastPerWindow) this.destroy(tooSlow());
      this.passedInWindow = 0;
    }, settings.windowSeconds * 1000);
    this.timer.unref();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.passedInWindow += chunk.length;
    callback(null, chunk);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    clearInterval(this.timer);
    callback(error);
  }

  override _flush(callback: TransformCallback): void {
    clearInterval(this.timer);
    callback();
  }
}
