import type { components, operations } from "@verbatim/contract";
import { type BareOr, bodyOf } from "../bare.ts";
import { Paginator } from "../pagination.ts";
import { ApiResource } from "../resource.ts";
import { type Result, type SuccessBody, unwrap } from "../result.ts";
import type { RequestOptions } from "../transport.ts";

/** What `POST /monitors` takes. */
export type MonitorCreate = components["schemas"]["MonitorCreate"];
/** What `PATCH /monitors/{id}` takes: a field sent as `null` is cleared, an omitted one kept. */
export type MonitorUpdate = components["schemas"]["MonitorUpdate"];
/** An event of a monitor. */
export type MonitorEvent = components["schemas"]["MonitorEvent"];
/** The query of `GET /monitors/{id}/events`. */
export type MonitorEventQuery = NonNullable<operations["listMonitorEvents"]["parameters"]["query"]>;
/** A page of a monitor's events. */
export type MonitorEventPageResult = Result<SuccessBody<"listMonitorEvents">>;

type SinceQuery = NonNullable<operations["listMonitors"]["parameters"]["query"]>;

/** Monitors: watch a YouTube channel on a schedule and receive its new videos as events. */
export class Monitors extends ApiResource {
  /**
   * Creates a monitor; its free baseline is taken now. The answer carries the monitor's
   * `webhook_secret`, shown only this once. A string is the `target`.
   */
  create(monitor: BareOr<MonitorCreate>, options?: RequestOptions): Promise<Result<SuccessBody<"createMonitor", 201>>> {
    return unwrap(
      this.client.raw.POST("/monitors", {
        body: bodyOf<MonitorCreate>(monitor, "target"),
        ...this.callInit(options),
      }),
    );
  }

  /** The account's monitors, with `has_new` against `since` (an event id). */
  list(query: SinceQuery = {}, options?: RequestOptions): Promise<Result<SuccessBody<"listMonitors">>> {
    return unwrap(
      this.client.raw.GET("/monitors", {
        params: { query },
        ...this.callInit(options),
      }),
    );
  }

  /** One monitor. */
  get(monitorId: string, query: SinceQuery = {}, options?: RequestOptions): Promise<Result<SuccessBody<"getMonitor">>> {
    return unwrap(
      this.client.raw.GET("/monitors/{monitorId}", {
        params: { path: { monitorId }, query },
        ...this.callInit(options),
      }),
    );
  }

  /** Changes a monitor: pause or resume it, its tab, interval, transcripts, webhook or name. */
  update(
    monitorId: string,
    changes: MonitorUpdate,
    options?: RequestOptions,
  ): Promise<Result<SuccessBody<"updateMonitor">>> {
    return unwrap(
      this.client.raw.PATCH("/monitors/{monitorId}", {
        params: { path: { monitorId } },
        body: changes,
        ...this.callInit(options),
      }),
    );
  }

  /** Deletes a monitor, its events and their pending deliveries. */
  delete(monitorId: string, options?: RequestOptions): Promise<Result<SuccessBody<"deleteMonitor">>> {
    return unwrap(
      this.client.raw.DELETE("/monitors/{monitorId}", {
        params: { path: { monitorId } },
        ...this.callInit(options),
      }),
    );
  }

  /** Checks a monitor now, even when paused. A check that finds nothing is free; new videos cost 1 credit. */
  check(monitorId: string, options?: RequestOptions): Promise<Result<SuccessBody<"checkMonitor">>> {
    return unwrap(
      this.client.raw.POST("/monitors/{monitorId}/check", {
        params: { path: { monitorId } },
        ...this.callInit(options),
      }),
    );
  }

  /** One page of a monitor's events, newest first. */
  events(monitorId: string, query: MonitorEventQuery = {}, options?: RequestOptions): Promise<MonitorEventPageResult> {
    return unwrap(
      this.client.raw.GET("/monitors/{monitorId}/events", {
        params: { path: { monitorId }, query },
        ...this.callInit(options),
      }),
    );
  }

  /** Every event of a monitor, newest first, page after page; with `since`, only the events newer than it. */
  allEvents(
    monitorId: string,
    query: MonitorEventQuery = {},
    options?: RequestOptions,
  ): Paginator<MonitorEventPageResult["data"], MonitorEvent> {
    const { cursor, ...rest } = query;
    return new Paginator(
      (next) => this.events(monitorId, { ...rest, cursor: next }, options),
      (page) => page.events,
      cursor,
    );
  }
}
