import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import {
  AccountSlots,
  Accounts,
  Authenticator,
  Credits,
  DashboardSessions,
  Idempotency,
  ToolCallAdmissions,
  UsageReports,
} from "../services/accounts/index.ts";
import { ListCursors } from "../services/cursors/index.ts";
import { LibraryCursors, TranscriptLibrary } from "../services/library/index.ts";
import type { Platform } from "../services/process-services.ts";
import { WebhookLog } from "../services/webhooks/index.ts";
import type { Store } from "../store/database.ts";

export interface PlatformOptions {
  now: () => Date;
  /** Seconds a slot lease lives without renewal. */
  slotLeaseSeconds?: number;
  /** Seconds the Idempotency-Key of a request whose process died stays locked. */
  idempotencyLockSeconds?: number;
}

/** Builds the platform's services on an open store and writes the plan table into it. */
export async function createPlatform(store: Store, options: PlatformOptions): Promise<Platform> {
  const accounts = new Accounts(store, options.now);
  await accounts.syncPlans();
  const leases = {
    holder: `${hostname()}:${process.pid}:${randomUUID()}`,
    leaseSeconds: options.slotLeaseSeconds ?? 15,
    now: options.now,
  };
  return {
    store,
    accounts,
    authenticator: new Authenticator(store),
    credits: new Credits(store, options.now),
    dashboard: new DashboardSessions(store, options.now),
    idempotency: new Idempotency(store, {
      now: options.now,
      ...(options.idempotencyLockSeconds === undefined ? {} : { inFlightSeconds: options.idempotencyLockSeconds }),
    }),
    library: new TranscriptLibrary(store, new LibraryCursors(store, options.now), options.now),
    listCursors: new ListCursors(store, options.now),
    slots: new AccountSlots(store, { pool: "extraction", ...leases }),
    jobSlots: new AccountSlots(store, { pool: "transcription", ...leases }),
    toolCallAdmissions: new ToolCallAdmissions(),
    usage: new UsageReports(store, options.now),
    webhookLog: new WebhookLog(store, options.now),
  };
}
