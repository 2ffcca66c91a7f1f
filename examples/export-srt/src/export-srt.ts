import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { toSrt, toText, toVtt, type Verbatim } from "@verbatim/sdk";

export interface ExportOptions {
  /** A YouTube id or URL, a podcast episode or a media file URL. */
  video: string;
  /** The directory the files are written to; created if missing. */
  outDir: string;
  print: (line: string) => void;
}

/** The files written, by format. */
export interface ExportedFiles {
  srt: string;
  vtt: string;
  txt: string;
}

/**
 * Fetches a transcript with its timed segments and writes it as `<video_id>.srt`, `.vtt` and
 * `.txt` (one `[mm:ss]` line per segment). `wait: true` makes speech recognition that became
 * a job answer like a transcript given at once, after the job completes.
 */
export async function exportSubtitles(
  verbatim: Verbatim,
  { video, outDir, print }: ExportOptions,
): Promise<ExportedFiles> {
  const { data, usage } = await verbatim.transcripts.video({ video }, { wait: true });
  const segments = data.segments ?? [];
  print(
    `${data.title ?? data.video_id}: ${segments.length} segments from ${data.source}, ${usage.credits_spent} credit${usage.credits_spent === 1 ? "" : "s"} spent`,
  );

  await mkdir(outDir, { recursive: true });
  const files = {
    srt: join(outDir, `${data.video_id}.srt`),
    vtt: join(outDir, `${data.video_id}.vtt`),
    txt: join(outDir, `${data.video_id}.txt`),
  };
  await writeFile(files.srt, toSrt(segments));
  await writeFile(files.vtt, toVtt(segments));
  await writeFile(files.txt, `${toText(segments, { timestamps: true })}\n`);
  for (const path of Object.values(files)) print(`wrote ${path}`);
  return files;
}
