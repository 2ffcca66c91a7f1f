import { createReadStream } from "node:fs";
import { open } from "node:fs/promises";

/**
 * The protection schemes of ISO Common Encryption (ISO/IEC 23001-7) and Apple's FairPlay
 * variant, as a `schm` box names them. ffmpeg decodes such audio into noise without saying
 * why, so the container is read instead.
 */
const protectionSchemes = new Set(["cenc", "cens", "cbc1", "cbcs"]);

const SCHEME_TYPE_OFFSET = 8; // after "schm": version and flags (4 bytes), then the scheme type

/**
 * Whether an MP4/M4A/MOV file is encrypted with a DRM scheme: its sample description carries a
 * `schm` box naming a Common Encryption scheme. Other containers (MP3, WAV, Ogg, FLAC, WebM
 * without encryption) answer false without being read past their first bytes.
 */
export async function isDrmProtected(path: string): Promise<boolean> {
  if (!(await isIsoMediaFile(path))) return false;
  // The protection box sits in `moov`, at the start or the end of the file: scan it all, carrying
  // the last bytes of each chunk over so a box split across two chunks is still seen.
  let carried = Buffer.alloc(0);
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    const bytes = carried.length > 0 ? Buffer.concat([carried, chunk]) : chunk;
    for (let at = bytes.indexOf("schm"); at !== -1; at = bytes.indexOf("schm", at + 1)) {
      const scheme = bytes.subarray(at + SCHEME_TYPE_OFFSET, at + SCHEME_TYPE_OFFSET + 4).toString("latin1");
      if (protectionSchemes.has(scheme)) return true;
    }
    carried = Buffer.from(bytes.subarray(Math.max(0, bytes.length - (SCHEME_TYPE_OFFSET + 4))));
  }
  return false;
}

/** ISO base media files (MP4, M4A, MOV, 3GP) begin with an `ftyp` box. */
async function isIsoMediaFile(path: string): Promise<boolean> {
  const file = await open(path, "r");
  try {
    const head = Buffer.alloc(8);
    const { bytesRead } = await file.read(head, 0, 8, 0);
    return bytesRead === 8 && head.subarray(4, 8).toString("latin1") === "ftyp";
  } finally {
    await file.close();
  }
}
