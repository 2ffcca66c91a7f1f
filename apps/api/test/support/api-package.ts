import { fileURLToPath } from "node:url";

/** The API package's directory: where its scripts run as child processes, and `--import tsx` resolves. */
export const apiPackage = fileURLToPath(new URL("../..", import.meta.url));
