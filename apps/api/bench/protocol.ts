/** The messages between the benchmark (parent) and a target server (child), over the fork IPC channel. */

/**
 * What is under load: a bare Express route, the operation on one of the two engines, or (`durable`)
 * a bare Express route that also charges on PostgreSQL with node-postgres: the floor of a charged
 * answer.
 */
export type TargetName = "bare" | "durable" | "embedded" | "postgres";

/** Whether the target's work includes PostgreSQL's: its CPU belongs to the target while it runs. */
export function runsOnPostgres(name: TargetName): boolean {
  return name === "postgres" || name === "durable";
}

/** How the child builds its target; passed as JSON in `argv[2]`. */
export interface TargetSpec {
  name: TargetName;
  /** The fresh database of the `postgres` target. */
  databaseUrl?: string;
  /** The JSON body the `bare` route answers: a real `/me` response captured from a metered target. */
  body?: unknown;
}

export type ChildMessage =
  | { type: "ready"; port: number; apiKeys: string[] }
  | { type: "failed"; message: string }
  | { type: "counting" }
  | {
      type: "counted";
      /** Requests that arrived while counting. */
      requests: number;
      /** Statements sent to the database driver while counting. */
      queries: number;
      /** CPU the child used while counting, in milliseconds. */
      cpuMs: number;
      /** Admitted requests the sliding windows hold afterwards. */
      windowRows: number | null;
    };

export type ParentMessage = { type: "count-start" } | { type: "count-stop" } | { type: "close" };
