import { createWebhookReceiver, describeEvent } from "./webhook-receiver.ts";

const secret = process.env.VERBATIM_WEBHOOK_SECRET;
if (!secret) {
  process.stderr.write(
    "Set VERBATIM_WEBHOOK_SECRET to the account's secret (`pnpm verbatim accounts show <account>`) or a monitor's.\n",
  );
  process.exit(2);
}
const port = Number(process.env.PORT ?? 3000);

const app = createWebhookReceiver({
  secret,
  onEvent: (event) => {
    process.stdout.write(`${describeEvent(event)}\n`);
  },
});
app.listen(port, (error) => {
  if (error) throw error;
  process.stdout.write(`receiving webhooks on POST http://<this host>:${port}/webhooks\n`);
});
