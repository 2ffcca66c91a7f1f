import { readFile } from "node:fs/promises";
import type { GeneratedMedia } from "../asr/generated-media.ts";

/** A one-second FLAC whose STREAMINFO declares five hours: ffmpeg reports the declared duration. */
export async function fiveHourFlac(media: GeneratedMedia): Promise<string> {
  const short = await media.make("short.flac", ["-f", "lavfi", "-i", "anullsrc=r=16000:cl=mono", "-t", "1"]);
  const bytes = Buffer.from(await readFile(short));
  // STREAMINFO follows "fLaC" and its 4-byte block header; its bytes 10-17 end with the 36-bit sample count.
  const field = 8 + 10;
  const packed = bytes.readBigUInt64BE(field);
  const sampleCountMask = (1n << 36n) - 1n;
  bytes.writeBigUInt64BE((packed & ~sampleCountMask) | BigInt(5 * 3600 * 16_000), field);
  return media.write("five-hours.flac", bytes);
}

/** AAC in MP4 encrypted with Common Encryption (ffmpeg's own cenc-aes-ctr muxer option), as DRM'd stores ship it. */
export function encryptedM4a(media: GeneratedMedia): Promise<string> {
  return media.make("encrypted.m4a", [
    "-f",
    "lavfi",
    "-i",
    "sine=f=440:d=2",
    "-c:a",
    "aac",
    "-encryption_scheme",
    "cenc-aes-ctr",
    "-encryption_key",
    "76a6c65c5ea762046bd749a2e632ccbb",
    "-encryption_kid",
    "a7e61c373e219033c21091fa607bf3b8",
  ]);
}
