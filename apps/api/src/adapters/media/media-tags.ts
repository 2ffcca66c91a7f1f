/** What a media file's container says of it: its global tags and its chapters. */
export interface MediaTags {
  /** Tag names lower-cased (`title`, `artist`, `album`, `date`, `comment`, `genre`, …). */
  tags: Record<string, string>;
  /** In the container's order, in seconds to the millisecond. */
  chapters: Array<{ title: string; start: number; end: number }>;
}

/** The most tags and chapters kept of a file: the container is the uploader's, so hostile. */
const mostEntries = 500;

/** The longest value kept of a tag. */
const longestValue = 20_000;

/**
 * Reads ffmpeg's `ffmetadata` output (`;FFMETADATA1`, `key=value` lines, `[CHAPTER]` sections with
 * `TIMEBASE=num/den`, `START`, `END`, `title`). Values escape `=`, `;`, `#`, `\` and line breaks
 * with a backslash, so a value may run over several lines.
 */
export function parseFfmetadata(output: string): MediaTags {
  const tags: Record<string, string> = {};
  const chapters: MediaTags["chapters"] = [];
  let chapter: Record<string, string> | null = null;
  const closeChapter = () => {
    const read = chapter && chapterOf(chapter);
    if (read && chapters.length < mostEntries) chapters.push(read);
    chapter = null;
  };
  for (const line of logicalLines(output)) {
    if (line.startsWith(";") || line.startsWith("#") || line === "") continue;
    if (line.startsWith("[")) {
      closeChapter();
      if (line === "[CHAPTER]") chapter = {};
      continue;
    }
    const equals = unescapedEquals(line);
    if (equals < 0) continue;
    const key = unescaped(line.slice(0, equals)).toLowerCase();
    const value = unescaped(line.slice(equals + 1))
      .trim()
      .slice(0, longestValue);
    const target: Record<string, string> | null = chapter ?? (Object.keys(tags).length < mostEntries ? tags : null);
    if (target && value !== "" && !(key in target)) target[key] = value;
  }
  closeChapter();
  return { tags, chapters };
}

function chapterOf(fields: Record<string, string>): MediaTags["chapters"][number] | null {
  const [numerator, denominator] = (fields.timebase ?? "1/1000").split("/").map(Number);
  const start = Number(fields.start);
  const end = Number(fields.end);
  if (!numerator || !denominator || !Number.isFinite(start) || !Number.isFinite(end)) return null;
  const seconds = (ticks: number) => Math.round((ticks * numerator * 1000) / denominator) / 1000;
  return { title: fields.title ?? "", start: seconds(start), end: seconds(end) };
}

/** Lines joined where a backslash escapes the line break. */
function logicalLines(output: string): string[] {
  const lines: string[] = [];
  let current = "";
  for (const line of output.split("\n")) {
    current += line;
    if (endsEscaped(line)) {
      current = `${current.slice(0, -1)}\n`;
      continue;
    }
    lines.push(current);
    current = "";
  }
  if (current) lines.push(current);
  return lines;
}

/** Whether the line ends in an odd run of backslashes: its last one escapes the break. */
function endsEscaped(line: string): boolean {
  let count = 0;
  for (let at = line.length - 1; at >= 0 && line[at] === "\\"; at--) count++;
  return count % 2 === 1;
}

function unescapedEquals(line: string): number {
  for (let at = 0; at < line.length; at++) {
    if (line[at] === "\\") at++;
    else if (line[at] === "=") return at;
  }
  return -1;
}

function unescaped(text: string): string {
  return text.replace(/\\(.)/gs, "$1");
}
