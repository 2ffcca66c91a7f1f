import { ApiError, Verbatim } from "@verbatim/sdk";
import { fetchBatch } from "./batch.ts";

const videoIds = process.argv.slice(2);
if (!process.env.VERBATIM_API_KEY || videoIds.length === 0) {
  process.stderr.write("Usage: VERBATIM_API_KEY=vb_live_... pnpm start <video id or URL>...\n");
  process.exit(2);
}

// The client reads VERBATIM_API_KEY and VERBATIM_BASE_URL (default http://127.0.0.1:8080).
await fetchBatch(new Verbatim(), { videoIds, print: (line) => process.stdout.write(`${line}\n`) }).catch(
  (error: unknown) => {
    const reason = error instanceof ApiError ? `${error.code}: ${error.message}` : String(error);
    process.stderr.write(`${reason}\n`);
    process.exit(1);
  },
);
