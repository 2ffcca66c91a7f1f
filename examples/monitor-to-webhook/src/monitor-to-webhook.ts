import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createWebhookReceiver, describeEvent } from "@verbatim/example-webhook-receiver";
import type { Verbatim, WebhookEvent } from "@verbatim/sdk";

export interface MonitorToWebhookOptions {
  /** An `@handle`, a channel URL or a `UC...` id. */
  channel: string;
  /** Where the receiver listens. Default: port 3000 on 127.0.0.1; port 0 takes any free port. */
  listen?: { port?: number; host?: string };
  /**
   * The receiver's URL as the server reaches it, e.g. a tunnel's https address. Default: the
   * listening address, which a server accepts only with `VERBATIM_ALLOW_PRIVATE_TARGETS=1`.
   */
  publicUrl?: string;
  print: (line: string) => void;
  /** Called with each verified event, after it is printed. */
  onEvent?: (event: WebhookEvent) => void;
}

export interface FollowedChannel {
  monitorId: string;
  webhookUrl: string;
  /** Checks the channel now instead of waiting for the schedule, and prints what the check found. */
  check(): Promise<void>;
  /** Deletes the monitor and stops the receiver. */
  close(): Promise<void>;
}

/**
 * Watches a channel: creates a monitor that fetches each new video's transcript, starts a
 * webhook receiver verifying with the monitor's secret (shown only in the create answer), and
 * points the monitor's `webhook_url` at it. From then on each check's `monitor.videos` event
 * and each new video's `monitor.transcript` event arrive at the receiver and are printed.
 */
export async function monitorToWebhook(
  verbatim: Verbatim,
  { channel, listen = {}, publicUrl, print, onEvent }: MonitorToWebhookOptions,
): Promise<FollowedChannel> {
  const { data: monitor } = await verbatim.monitors.create({ target: channel, transcripts: true });
  print(
    `monitor ${monitor.id} watches ${monitor.target}: ${monitor.baseline_count} videos already there, checked every ${monitor.interval_minutes} min`,
  );

  const receiver = createWebhookReceiver({
    secret: monitor.webhook_secret,
    onEvent: (event) => {
      print(describeEvent(event));
      onEvent?.(event);
    },
  });
  const server = await new Promise<Server>((resolve, reject) => {
    const listening = receiver.listen(listen.port ?? 3000, listen.host ?? "127.0.0.1", (error) =>
      error ? reject(error) : resolve(listening),
    );
  });
  const { address, port } = server.address() as AddressInfo;
  const webhookUrl = publicUrl ?? `http://${address}:${port}/webhooks`;
  try {
    await verbatim.monitors.update(monitor.id, { webhook_url: webhookUrl });
  } catch (error) {
    server.close();
    await verbatim.monitors.delete(monitor.id);
    throw error;
  }
  print(`its events go to ${webhookUrl}`);

  return {
    monitorId: monitor.id,
    webhookUrl,
    async check() {
      const { data, usage } = await verbatim.monitors.check(monitor.id);
      if (data.error) print(`check failed: ${data.error.code}: ${data.error.message}`);
      else if (data.new_videos === 0) print("check: nothing new");
      else
        print(`check: ${data.new_videos} new videos in event ${data.event?.id}, ${usage.credits_spent} credits spent`);
    },
    async close() {
      await verbatim.monitors.delete(monitor.id);
      print(`monitor ${monitor.id} deleted`);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
