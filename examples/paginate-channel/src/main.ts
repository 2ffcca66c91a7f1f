import { parseArgs } from "node:util";
import { ApiError, Verbatim } from "@verbatim/sdk";
import { printChannelPages, printChannelVideos } from "./paginate-channel.ts";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    pages: { type: "boolean", default: false },
    max: { type: "string", default: "100" },
    "page-size": { type: "string", default: "50" },
  },
});
const [channel] = positionals;
if (!process.env.VERBATIM_API_KEY || channel === undefined) {
  process.stderr.write(
    "Usage: VERBATIM_API_KEY=vb_live_... pnpm start <channel> [--max N] [--page-size N] [--pages]\n",
  );
  process.exit(2);
}

// The client reads VERBATIM_API_KEY and VERBATIM_BASE_URL (default http://127.0.0.1:8080).
const verbatim = new Verbatim();
const options = {
  channel,
  pageSize: Number(values["page-size"]),
  print: (line: string) => process.stdout.write(`${line}\n`),
};
const listing = values.pages
  ? printChannelPages(verbatim, { ...options, maxPages: Number(values.max) })
  : printChannelVideos(verbatim, { ...options, max: Number(values.max) });
await listing.catch((error: unknown) => {
  const reason = error instanceof ApiError ? `${error.code}: ${error.message}` : String(error);
  process.stderr.write(`${reason}\n`);
  process.exit(1);
});
