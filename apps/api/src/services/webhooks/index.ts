export { createWebhooks } from "./webhook-deliverer.ts";
export type { WebhookOutbox } from "./webhook-events.ts";
export { WebhookLog } from "./webhook-log.ts";
export { retryDelaysMsFrom } from "./webhook-retry-schedule.ts";
export { type WebhookTargetRule, webhookTargetProblem } from "./webhook-targets.ts";
