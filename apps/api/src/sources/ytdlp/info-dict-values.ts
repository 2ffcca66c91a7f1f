/** The longest text field kept: beyond it, a "title" is a post's whole description. */
const longestText = 2_000;

/**
 * Readers of an info dict's values, which yt-dlp copies from the platform's page: any of them may
 * be missing, of another type, or hostile.
 */
export function trimmedText(value: unknown, longest = longestText): string | undefined {
  if (typeof value !== "string") return undefined;
  const trimmed = value.trim();
  return trimmed ? trimmed.slice(0, longest) : undefined;
}

/** An http or https address, as the URL parser writes it; anything else is none. */
export function httpAddress(value: unknown): string | null {
  const candidate = trimmedText(value);
  if (!candidate) return null;
  try {
    const url = new URL(candidate);
    return url.protocol === "https:" || url.protocol === "http:" ? url.toString() : null;
  } catch {
    return null;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
