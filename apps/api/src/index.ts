export { createApp } from "./app.ts";
export { type AudioDeps, composeServices, type MonitorDeps, type ServiceParts, type YoutubeDeps } from "./compose.ts";
export type { AppDeps, HttpConfig, Services } from "./deps.ts";
export { ApiError } from "./errors.ts";
export { v1Operations, v2Operations } from "./http/operations.ts";
export { liveRoutes, pendingOperations } from "./http/routes/index.ts";
export { createLogger } from "./logger.ts";
