export { TranscriptLibrary } from "./library.ts";
export { LibraryCursors } from "./library-cursors.ts";
export type { MomentLinks } from "./library-snippets.ts";
