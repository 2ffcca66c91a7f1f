import type { RequestBody, Schema } from "@verbatim/contract";
import { and, eq } from "drizzle-orm";
import { ApiError } from "../../errors.ts";
import type { Store } from "../../store/database.ts";
import { monitors } from "../../store/schema.ts";
import type { MonitorEvents, MonitorRow } from "./monitor-events.ts";
import type { MonitorLists, WatchedList } from "./monitor-lists.ts";

export type MonitorView = Schema<"Monitor">;
export type MonitorCreate = RequestBody<"createMonitor">;
export type MonitorUpdate = RequestBody<"updateMonitor">;
/** A failed check's or transcript's `error`, as events and `last_error` show it. */
export type CheckErrorBody = NonNullable<Schema<"MonitorCheck">["error"]>;

/** Limits on an account's monitors, as `GET /monitors` reports them. */
export const monitorLimits = { max_monitors: 100, min_interval_minutes: 15 } as const;

/** Monitors' rows looked up for their account, and shown with their newest event. */
export class MonitorViews {
  constructor(
    private readonly store: Store,
    private readonly events: Pick<MonitorEvents, "newestOf">,
    private readonly lists: Pick<MonitorLists, "describe">,
  ) {}

  /** The monitor if it belongs to the account; another account's monitor is as unknown as a missing one. */
  async owned(accountId: string, monitorId: string): Promise<MonitorRow> {
    const [row] = await this.store.db
      .select()
      .from(monitors)
      .where(and(eq(monitors.id, monitorId), eq(monitors.accountId, accountId)));
    if (!row) throw monitorNotFound(monitorId);
    return row;
  }

  /** The monitor's row as it is now, after a check changed it. */
  async reload(monitor: MonitorRow): Promise<MonitorRow> {
    const [row] = await this.store.db.select().from(monitors).where(eq(monitors.id, monitor.id));
    if (!row) throw monitorNotFound(monitor.id);
    return row;
  }

  async view(row: MonitorRow, since: string | undefined): Promise<MonitorView> {
    const newest = await this.events.newestOf([row.id]);
    return monitorView(row, this.lists.describe(row), newest.get(row.id) ?? null, since);
  }
}

/** The API's monitor; `has_new` when its newest event is newer than `since` (any event, without `since`). */
export function monitorView(
  row: MonitorRow,
  watched: WatchedList,
  lastEventId: string | null,
  since: string | undefined,
): MonitorView {
  return {
    kind: "monitor",
    id: row.id,
    type: "channel",
    platform: watched.platform,
    target: row.target,
    options: watched.options,
    name: row.name,
    status: row.status as MonitorView["status"],
    has_new: lastEventId !== null && (since === undefined || lastEventId > since),
    interval_minutes: row.intervalMinutes as MonitorView["interval_minutes"],
    transcripts: row.transcripts,
    webhook_url: row.webhookUrl,
    last_event_id: lastEventId,
    next_check_at: row.nextCheckAt?.toISOString() ?? null,
    last_checked_at: row.lastCheckedAt?.toISOString() ?? null,
    last_error: row.lastError as MonitorView["last_error"],
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function checkErrorBody(failure: ApiError, docsBaseUrl: string): CheckErrorBody {
  return failure.toBody(docsBaseUrl) as CheckErrorBody;
}

export function monitorNotFound(monitorId: string): ApiError {
  return new ApiError("not_found", `No monitor ${monitorId} on this account.`);
}
