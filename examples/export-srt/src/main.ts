import { parseArgs } from "node:util";
import { ApiError, Verbatim } from "@verbatim/sdk";
import { exportSubtitles } from "./export-srt.ts";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { out: { type: "string", default: "." } },
});
const [video] = positionals;
if (!process.env.VERBATIM_API_KEY || video === undefined) {
  process.stderr.write("Usage: VERBATIM_API_KEY=vb_live_... pnpm start <video> [--out directory]\n");
  process.exit(2);
}

// The client reads VERBATIM_API_KEY and VERBATIM_BASE_URL (default http://127.0.0.1:8080).
await exportSubtitles(new Verbatim(), {
  video,
  outDir: values.out,
  print: (line) => process.stdout.write(`${line}\n`),
}).catch((error: unknown) => {
  const reason = error instanceof ApiError ? `${error.code}: ${error.message}` : String(error);
  process.stderr.write(`${reason}\n`);
  process.exit(1);
});
