import type { JobProgress } from "../resources/transcripts.ts";

/** Where progress goes: standard error, and whether it is a terminal. */
export interface ProgressStream {
  write: (text: string) => unknown;
  isTTY?: boolean;
}

/** Shows a speech job's progress; `finish` ends the display before the transcript is printed. */
export interface ProgressDisplay {
  update: (progress: JobProgress) => void;
  finish: () => void;
}

const barWidth = 30;

/**
 * On a terminal, one bar redrawn in place; otherwise a line per change (`progress 40%`), which a
 * log or a pipe can read without control characters.
 */
export function progressDisplay(stream: ProgressStream): ProgressDisplay {
  return stream.isTTY ? terminalBar(stream) : progressLines(stream);
}

function percent(progress: JobProgress): number | null {
  return progress.progress === null ? null : Math.round(Math.min(1, Math.max(0, progress.progress)) * 100);
}

function terminalBar(stream: ProgressStream): ProgressDisplay {
  let drawn = false;
  return {
    update(progress) {
      const share = percent(progress);
      const filled = Math.round(((share ?? 0) / 100) * barWidth);
      const bar = `${"█".repeat(filled)}${"░".repeat(barWidth - filled)}`;
      const figure = share === null ? "  …" : `${String(share).padStart(3)}%`;
      // Carriage return and erase-line redraw the bar on the line it already occupies.
      stream.write(`\r\x1b[2K${bar} ${figure} transcribing (${progress.jobId})`);
      drawn = true;
    },
    finish() {
      if (drawn) stream.write("\n");
      drawn = false;
    },
  };
}

function progressLines(stream: ProgressStream): ProgressDisplay {
  let announced = false;
  let last: number | null = null;
  return {
    update(progress) {
      if (!announced) {
        stream.write(`job ${progress.jobId} transcribing\n`);
        announced = true;
      }
      const share = percent(progress);
      if (share === null || share === last) return;
      stream.write(`progress ${share}%\n`);
      last = share;
    },
    finish() {},
  };
}
