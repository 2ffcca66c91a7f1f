export { LiveEndings } from "./live-endings.ts";
export { LiveFeed } from "./live-feed.ts";
export type { LiveCreateInput, LiveStreamMessage } from "./live-requests.ts";
export { LiveRunner } from "./live-run.ts";
export type { LiveRunSettings } from "./live-run-settings.ts";
export { LiveSessions } from "./live-sessions.ts";
export { type ClaimedSession, LiveStore } from "./live-store.ts";
export { LiveWebhooks } from "./live-webhooks.ts";
