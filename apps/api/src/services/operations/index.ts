export {
  HeartbeatWriter,
  heartbeatFreshSeconds,
  readWorkerHeartbeats,
  type WorkerHeartbeat,
} from "./worker-heartbeats.ts";
