// The entry point of the rendering threads. Plain JavaScript, because a worker thread does not inherit
// the TypeScript loader of the process (tsx, or vitest's): it registers tsx itself, then loads the tasks.
import { register } from "tsx/esm/api";

register();
export const { renderFieldsJson } = await import("./transcript-rendering-tasks.ts");
