import { fileURLToPath } from "node:url";

/** Absolute path of the built dashboard (`vite build`): the API serves it at `/dashboard`. */
export const dashboardDist = fileURLToPath(new URL("./dist", import.meta.url));
