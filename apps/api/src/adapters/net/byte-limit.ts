import { Transform } from "node:stream";

/** A pass-through stream that fails with `tooLarge()` once more than `maxBytes` have passed. */
export class ByteLimit extends Transform {
  /** Bytes passed so far. */
  bytes = 0;

  constructor(maxBytes: number, tooLarge: () => Error) {
    super({
      transform: (chunk: Buffer, _encoding, callback) => {
        this.bytes += chunk.length;
        callback(this.bytes > maxBytes ? tooLarge() : null, chunk);
      },
    });
  }
}
