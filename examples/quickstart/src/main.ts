import { ApiError, Verbatim } from "@verbatim/sdk";
import { quickstart } from "./quickstart.ts";

if (!process.env.VERBATIM_API_KEY) {
  process.stderr.write("Set VERBATIM_API_KEY to a key (`pnpm start` prints one on its first run).\n");
  process.exit(2);
}

// The client reads VERBATIM_API_KEY and VERBATIM_BASE_URL (default http://127.0.0.1:8080).
await quickstart(new Verbatim(), (line) => process.stdout.write(`${line}\n`)).catch((error: unknown) => {
  const reason = error instanceof ApiError ? `${error.code}: ${error.message}` : String(error);
  process.stderr.write(`${reason}\n`);
  process.exit(1);
});
