export { EventCursors } from "./event-cursors.ts";
export { cursorLifetimeMs, ListCursors, type ListPosition } from "./list-cursors.ts";
export { SigningKey } from "./signing-key.ts";
