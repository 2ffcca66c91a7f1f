import { ApiError, Verbatim } from "@verbatim/sdk";
import { transcribeEpisode } from "./podcast-job.ts";

const [source, episode] = process.argv.slice(2);
if (!process.env.VERBATIM_API_KEY || source === undefined) {
  process.stderr.write("Usage: VERBATIM_API_KEY=vb_live_... pnpm start <feed, episode page or media URL> [episode]\n");
  process.exit(2);
}

// The client reads VERBATIM_API_KEY and VERBATIM_BASE_URL (default http://127.0.0.1:8080).
await transcribeEpisode(new Verbatim(), {
  source,
  ...(episode === undefined ? {} : { episode }),
  print: (line) => process.stdout.write(`${line}\n`),
}).catch((error: unknown) => {
  // A failed job throws the same error classes as a failed request.
  const reason = error instanceof ApiError ? `${error.code}: ${error.message}` : String(error);
  process.stderr.write(`${reason}\n`);
  process.exit(1);
});
