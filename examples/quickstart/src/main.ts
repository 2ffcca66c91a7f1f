import { quickstart } from "./quickstart.ts";

const apiKey = process.env.VERBATIM_API_KEY;
if (!apiKey) {
  process.stderr.write("Set VERBATIM_API_KEY to a key (`pnpm start` prints one on its first run).\n");
  process.exit(2);
}

await quickstart({
  baseUrl: process.env.VERBATIM_URL ?? "http://127.0.0.1:8080",
  apiKey,
  print: (line) => process.stdout.write(`${line}\n`),
}).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
