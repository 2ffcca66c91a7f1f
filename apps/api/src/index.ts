export { createApp } from "./app.ts";
export { type AudioDeps, composeServices, type MonitorDeps, type ServiceParts, type YoutubeDeps } from "./compose.ts";
export { ApiError } from "./errors.ts";
export type { AppDeps, HttpConfig } from "./http/app-deps.ts";
export { v1Operations, v2Operations } from "./http/operations.ts";
export { liveRoutes, pendingOperations } from "./http/routes/index.ts";
export { createLogger } from "./logger.ts";
export type { Services } from "./services/process-services.ts";
