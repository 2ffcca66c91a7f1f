import { parseArgs } from "node:util";
import { ApiError, Verbatim } from "@verbatim/sdk";
import { monitorToWebhook } from "./monitor-to-webhook.ts";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    port: { type: "string", default: "3000" },
    host: { type: "string", default: "127.0.0.1" },
    "public-url": { type: "string" },
  },
});
const [channel] = positionals;
if (!process.env.VERBATIM_API_KEY || channel === undefined) {
  process.stderr.write(
    "Usage: VERBATIM_API_KEY=vb_live_... pnpm start <channel> [--port 3000] [--host 127.0.0.1] [--public-url https://...]\n",
  );
  process.exit(2);
}
const print = (line: string) => process.stdout.write(`${line}\n`);

try {
  // The client reads VERBATIM_API_KEY and VERBATIM_BASE_URL (default http://127.0.0.1:8080).
  const followed = await monitorToWebhook(new Verbatim(), {
    channel,
    listen: { port: Number(values.port), host: values.host },
    ...(values["public-url"] === undefined ? {} : { publicUrl: values["public-url"] }),
    print,
  });
  await followed.check();
  print("waiting for events; Ctrl-C deletes the monitor and stops");
  process.once("SIGINT", () => {
    followed.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
} catch (error) {
  const reason = error instanceof ApiError ? `${error.code}: ${error.message}` : String(error);
  process.stderr.write(`${reason}\n`);
  process.exit(1);
}
