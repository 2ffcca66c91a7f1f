import { randomBytes } from "node:crypto";
import type { Schema } from "@verbatim/contract";
import { and, desc, eq, sql } from "drizzle-orm";
import { ApiError } from "../../errors.ts";
import { newId } from "../../ids.ts";
import type { Logger } from "../../logger.ts";
import type { ListingRegistry } from "../../sources/listing-registry.ts";
import type { Store } from "../../store/database.ts";
import { monitors } from "../../store/schema.ts";
import type { Credits } from "../accounts/index.ts";
import type { EventCursors } from "../cursors/index.ts";
import type { Transcripts } from "../transcripts/index.ts";
import { type WebhookTargetRule, webhookTargetProblem } from "../webhooks/index.ts";
import { type CheckContext, type CheckResult, MonitorChecks } from "./monitor-checks.ts";
import { DueMonitorChecks } from "./monitor-claims.ts";
import type { MonitorEvents, MonitorEventView, MonitorRow } from "./monitor-events.ts";
import { MonitorLists, seenVideoLimit } from "./monitor-lists.ts";
import { CheckSchedule, claimBatchSize } from "./monitor-schedule.ts";
import { type MonitorAccounts, MonitorTranscripts } from "./monitor-transcripts.ts";
import {
  type MonitorCreate,
  type MonitorUpdate,
  type MonitorView,
  MonitorViews,
  monitorLimits,
  monitorNotFound,
  monitorView,
} from "./monitor-views.ts";

/** How long a scheduled check or a transcript fetch holds its claim: a worker that died frees it then. */
const defaultClaimSeconds = 600;

export interface MonitorsOptions {
  store: Store;
  /** The accounts monitors fetch transcripts for: their plan and balance. */
  accounts: MonitorAccounts;
  credits: Credits;
  /** The listing sources: a monitor watches anything `POST /transcripts/channel` lists. */
  listings: ListingRegistry;
  transcripts: Transcripts;
  events: MonitorEvents;
  cursors: EventCursors;
  /** The address rule a `webhook_url` must pass. */
  webhookTargets: WebhookTargetRule;
  now: () => Date;
  logger: Logger;
  /** The base of `error.docs` links in events and `last_error` of scheduled checks. */
  docsBaseUrl: string;
  /** 0 (inclusive) to 1: where in its jitter window a check lands. Default `Math.random`. */
  random?: () => number;
  claimSeconds?: number;
}

/** A page of a monitor's events for the API. */
export interface EventListPage {
  events: MonitorEventView[];
  nextCursor: string | null;
}

/**
 * Monitors (docs/decisions.md, rule 14): a list `POST /transcripts/channel` reads (a YouTube
 * channel's tab, a profile, a feed) checked on a schedule. Creation takes a free baseline of the
 * list's newest items; a check lists it down to the newest item already seen (the
 * `since_video_id` rule), and new items make one `monitor.videos` event (1 credit), then, with
 * `transcripts`, one `monitor.transcript` event per item, each fetched through the transcript
 * service with the item's `url` and charged like any transcript. A check that cannot pay records
 * `last_error` and changes nothing else, so its items are still new next time.
 */
export class Monitors {
  private readonly schedule: CheckSchedule;
  private readonly lists: MonitorLists;
  private readonly views: MonitorViews;
  private readonly checks: MonitorChecks;
  private readonly dueChecks: DueMonitorChecks;
  private readonly transcripts: MonitorTranscripts;

  constructor(private readonly options: MonitorsOptions) {
    const { store, credits, events, now, logger, docsBaseUrl } = options;
    const claimMs = (options.claimSeconds ?? defaultClaimSeconds) * 1000;
    this.schedule = new CheckSchedule(options.random ?? Math.random);
    this.lists = new MonitorLists(options.listings);
    this.views = new MonitorViews(store, events, this.lists);
    this.transcripts = new MonitorTranscripts({
      store,
      accounts: options.accounts,
      transcripts: options.transcripts,
      events,
      now,
      logger,
      docsBaseUrl,
      claimMs,
    });
    this.checks = new MonitorChecks({
      store,
      credits,
      events,
      now,
      claimMs,
      schedule: this.schedule,
      lists: this.lists,
      transcripts: this.transcripts,
      views: this.views,
    });
    this.dueChecks = new DueMonitorChecks({ store, checks: this.checks, now, logger, docsBaseUrl, claimMs });
  }

  async create(accountId: string, input: MonitorCreate): Promise<Schema<"CreatedMonitor">> {
    const listing = this.lists.listingOf({
      target: input.target,
      ...(input.tab === undefined ? {} : { tab: input.tab }),
    });
    if (input.platform !== undefined && input.platform !== listing.monitorPlatform) {
      throw new ApiError(
        "invalid_input",
        `platform is ${input.platform}, but the target is ${listing.label}, a ${listing.monitorPlatform} list.`,
      );
    }
    const webhookUrl = input.webhook_url ?? null;
    if (webhookUrl !== null) await this.requireDeliverable(webhookUrl);
    const [count] = await this.options.store.query<{ monitors: number }>(
      sql`select count(*)::int as monitors from monitors where account_id = ${accountId}`,
    );
    if ((count?.monitors ?? 0) >= monitorLimits.max_monitors) {
      throw new ApiError(
        "invalid_request",
        `The account has ${monitorLimits.max_monitors} monitors, the most it may have. Delete one first.`,
      );
    }
    const baseline = await this.lists.newestIds(listing, accountId);
    const now = this.options.now();
    const interval = input.interval_minutes ?? 60;
    const secret = `whsec_${randomBytes(24).toString("base64")}`;
    const [row] = await this.options.store.db
      .insert(monitors)
      .values({
        id: newId("mon"),
        accountId,
        target: input.target,
        // The column holds a tab for every monitor; a list without tabs is its one list, stored as `videos`.
        tab: input.tab ?? "videos",
        name: input.name ?? null,
        status: "active",
        intervalMinutes: interval,
        transcripts: input.transcripts ?? false,
        webhookUrl,
        webhookSecret: secret,
        seenVideoIds: baseline.slice(0, seenVideoLimit),
        nextCheckAt: this.schedule.nextCheckAfter(now, interval),
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    if (!row) throw new Error("inserting a monitor returned no row");
    return {
      ...monitorView(row, this.lists.describe(row), null, undefined),
      webhook_secret: secret,
      baseline_count: baseline.length,
    };
  }

  async list(accountId: string, since: string | undefined): Promise<Schema<"MonitorList">> {
    const rows = await this.options.store.db
      .select()
      .from(monitors)
      .where(eq(monitors.accountId, accountId))
      .orderBy(desc(monitors.id));
    const newest = await this.options.events.newestOf(rows.map((row) => row.id));
    const views = rows.map((row) => monitorView(row, this.lists.describe(row), newest.get(row.id) ?? null, since));
    const lastEventId = [...newest.values()].sort().at(-1) ?? null;
    return {
      kind: "monitor_list",
      monitors: views,
      has_new: views.some((view) => view.has_new),
      last_event_id: lastEventId,
      limits: { ...monitorLimits },
    };
  }

  async get(accountId: string, monitorId: string, since: string | undefined): Promise<MonitorView> {
    return this.views.view(await this.views.owned(accountId, monitorId), since);
  }

  /** Applies a PATCH: a field sent as `null` is cleared, an omitted one kept. A new tab takes a new baseline. */
  async update(accountId: string, monitorId: string, patch: MonitorUpdate): Promise<MonitorView> {
    const monitor = await this.views.owned(accountId, monitorId);
    if (patch.webhook_url) await this.requireDeliverable(patch.webhook_url);
    const now = this.options.now();
    const changes: Partial<MonitorRow> = { updatedAt: now };
    if (patch.tab !== undefined) {
      const listing = this.lists.listingOf({ target: monitor.target, tab: patch.tab });
      if (patch.tab !== monitor.tab) {
        changes.tab = patch.tab;
        changes.seenVideoIds = (await this.lists.newestIds(listing, accountId)).slice(0, seenVideoLimit);
      }
    }
    if (patch.interval_minutes !== undefined) changes.intervalMinutes = patch.interval_minutes;
    if (patch.transcripts !== undefined) changes.transcripts = patch.transcripts;
    if (patch.webhook_url !== undefined) changes.webhookUrl = patch.webhook_url;
    if (patch.name !== undefined) changes.name = patch.name;
    const status = patch.status ?? monitor.status;
    changes.status = status;
    const interval = changes.intervalMinutes ?? monitor.intervalMinutes;
    if (status === "paused") changes.nextCheckAt = null;
    else if (monitor.status === "paused" || changes.intervalMinutes !== undefined) {
      changes.nextCheckAt = this.schedule.nextCheckAfter(now, interval);
    }
    const [row] = await this.options.store.db
      .update(monitors)
      .set(changes)
      .where(and(eq(monitors.id, monitor.id), eq(monitors.accountId, accountId)))
      .returning();
    if (!row) throw monitorNotFound(monitorId);
    return this.views.view(row, undefined);
  }

  /** Deletes the monitor with its events, its pending deliveries and its unfetched transcripts. */
  async delete(accountId: string, monitorId: string): Promise<void> {
    const deleted = await this.options.store.db
      .delete(monitors)
      .where(and(eq(monitors.id, monitorId), eq(monitors.accountId, accountId)))
      .returning({ id: monitors.id });
    if (deleted.length === 0) throw monitorNotFound(monitorId);
  }

  /** Checks now, paused or not, under the same rules as a scheduled check. */
  async checkNow(accountId: string, monitorId: string, context: CheckContext): Promise<CheckResult> {
    return this.checks.check(await this.views.owned(accountId, monitorId), context);
  }

  async events(
    accountId: string,
    monitorId: string,
    query: { limit: number; cursor?: string; since?: string },
  ): Promise<EventListPage> {
    const monitor = await this.views.owned(accountId, monitorId);
    const before = query.cursor ? await this.options.cursors.read(monitor.id, query.cursor) : undefined;
    const page = await this.options.events.page(monitor.id, {
      limit: query.limit,
      ...(before === undefined ? {} : { before }),
      ...(query.since === undefined ? {} : { since: query.since }),
    });
    const last = page.events.at(-1);
    return {
      events: page.events,
      nextCursor: page.more && last ? await this.options.cursors.issue(monitor.id, last.id) : null,
    };
  }

  /** Checks the monitors that are due, each once across every worker; answers how many were checked. */
  runDueChecks(limit = claimBatchSize): Promise<number> {
    return this.dueChecks.run(limit);
  }

  /** Fetches transcripts a check left unfetched (its worker died); answers how many were claimed. */
  runPendingTranscripts(limit = claimBatchSize): Promise<number> {
    return this.transcripts.runPending(limit);
  }

  private async requireDeliverable(webhookUrl: string): Promise<void> {
    const problem = await webhookTargetProblem(webhookUrl, this.options.webhookTargets);
    if (problem) throw new ApiError("invalid_input", `webhook_url ${problem}.`);
  }
}
