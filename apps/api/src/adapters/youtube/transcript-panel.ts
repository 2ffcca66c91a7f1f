import type { CaptionSegment } from "./caption-formats.ts";
import { textOf } from "./player-response.ts";
import { UpstreamError } from "./upstream-errors.ts";

/** Finds the `get_transcript` token in a `/youtubei/v1/next` answer (the searchable-transcript engagement panel). */
export function findTranscriptPanelParams(nextResponse: unknown): string | null {
  const stack: unknown[] = [nextResponse];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== "object" || node === null) continue;
    const endpoint = (node as { getTranscriptEndpoint?: { params?: unknown } }).getTranscriptEndpoint;
    if (typeof endpoint?.params === "string") return endpoint.params;
    pushValuesOf(node, stack);
  }
  return null;
}

/** The transcript panel's segments and the track it shows ("English (auto-generated)"). */
export interface TranscriptPanel {
  segments: CaptionSegment[];
  selectedTrackName: string | null;
}

interface PanelSegment {
  transcriptSegmentRenderer?: {
    startMs?: string;
    endMs?: string;
    snippet?: { simpleText?: string; runs?: Array<{ text?: string }> };
  };
}

/** Reads a `/youtubei/v1/get_transcript` answer. */
export function readTranscriptPanel(body: unknown): TranscriptPanel {
  const renderer = findKey(body, "transcriptSearchPanelRenderer") as
    | {
        body?: { transcriptSegmentListRenderer?: { initialSegments?: PanelSegment[] } };
        footer?: unknown;
      }
    | undefined;
  const initial = renderer?.body?.transcriptSegmentListRenderer?.initialSegments;
  if (!Array.isArray(initial)) {
    throw new UpstreamError("unparseable", "The transcript panel answer has no transcript segments.");
  }
  const segments = initial.flatMap((item): CaptionSegment[] => {
    const segment = item.transcriptSegmentRenderer;
    const start = Number(segment?.startMs);
    const end = Number(segment?.endMs);
    const text = (textOf(segment?.snippet) ?? "").replace(/\s+/g, " ").trim();
    if (!text || !Number.isFinite(start)) return [];
    return [{ start: start / 1000, duration: Number.isFinite(end) ? Math.max(0, end - start) / 1000 : 0, text }];
  });
  const menu = findKey(renderer?.footer, "subMenuItems") as Array<{ title?: string; selected?: boolean }> | undefined;
  const selected = Array.isArray(menu) ? menu.find((item) => item.selected)?.title : undefined;
  return { segments, selectedTrackName: selected ?? null };
}

function findKey(root: unknown, key: string): unknown {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== "object" || node === null) continue;
    if (key in node) return (node as Record<string, unknown>)[key];
    pushValuesOf(node, stack);
  }
  return undefined;
}

/** Pushes each of the node's values: spread into one `push`, an answer of some 120,000 keys overflows the stack. */
function pushValuesOf(node: object, stack: unknown[]): void {
  for (const value of Object.values(node)) stack.push(value);
}
