export { MonitorEvents } from "./monitor-events.ts";
export { claimBatchSize } from "./monitor-schedule.ts";
export type { MonitorCreate, MonitorUpdate } from "./monitor-views.ts";
export { Monitors } from "./monitors.ts";
