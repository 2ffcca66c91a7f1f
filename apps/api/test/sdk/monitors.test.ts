import { InputError, RequestError } from "@verbatim/sdk";
import { channelUrl, newUploads, recordedFirstPageSize } from "@verbatim/testkit/recorded-channel";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MonitorHarness, startMonitorHarness } from "../monitors/harness.ts";
import { sdkFor } from "../support/sdk.ts";
import { serverStartTimeoutMs } from "../support/youtube-server.ts";

// Every monitor method of the SDK against a live server watching the recorded Creative Commons
// channel on a fake YouTube.

let h: MonitorHarness;

beforeAll(async () => {
  h = await startMonitorHarness();
}, serverStartTimeoutMs);
afterAll(async () => h?.close());

/** The SDK for a new account of 50 credits, with that account's balance and ledger charges. */
async function newAccount() {
  const { account, key } = await h.server.platform.accounts.create({ plan: "pro", credits: 50, name: "sdk monitors" });
  return {
    verbatim: sdkFor(h.server, { apiKey: key.key }),
    balance: () => h.server.platform.credits.balance(account.id),
    charges: () =>
      h.server.platform.store.query<{ delta: number; operation: string }>(
        sql`select delta::int as delta, operation from credit_ledger
             where account_id = ${account.id} and kind = 'charge' order by id`,
      ),
  };
}

async function rejectionOf(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );
}

describe("create, list and get", () => {
  it("create() answers 201 with the free baseline and the secret shown once; list() and get() show the monitor without it", async () => {
    const { verbatim, balance } = await newAccount();
    const created = await verbatim.monitors.create({ target: channelUrl, name: "cc uploads", interval_minutes: 15 });
    expect(created.httpStatus).toBe(201);
    expect(created.data).toMatchObject({
      kind: "monitor",
      id: expect.stringMatching(/^mon_[0-9A-Z]{26}$/),
      target: channelUrl,
      name: "cc uploads",
      status: "active",
      interval_minutes: 15,
      baseline_count: recordedFirstPageSize,
    });
    expect(created.data.webhook_secret).toMatch(/^whsec_/);
    expect(created.usage.credits_spent).toBe(0);
    expect(await balance()).toBe(50);

    const listed = await verbatim.monitors.list();
    expect(listed.data.monitors.map((monitor) => monitor.id)).toEqual([created.data.id]);
    expect(listed.data.monitors[0]).not.toHaveProperty("webhook_secret");
    const got = await verbatim.monitors.get(created.data.id);
    expect(got.data).toMatchObject({ id: created.data.id, name: "cc uploads", has_new: false, last_event_id: null });
    expect(got.data).not.toHaveProperty("webhook_secret");
    expect(got.rateLimit?.limit).toBeGreaterThan(0);
  });
});

describe("check and events", () => {
  let plain: Awaited<ReturnType<typeof newAccount>> & { monitorId: string };
  let withTranscripts: Awaited<ReturnType<typeof newAccount>> & { monitorId: string };

  beforeAll(async () => {
    // Both baselines are taken before the channel gets its new uploads.
    const plainAccount = await newAccount();
    const created = await plainAccount.verbatim.monitors.create({ target: channelUrl, webhook_url: null });
    plain = { ...plainAccount, monitorId: created.data.id };
    const transcriptsAccount = await newAccount();
    const createdWithTranscripts = await transcriptsAccount.verbatim.monitors.create({
      target: channelUrl,
      transcripts: true,
      webhook_url: null,
    });
    withTranscripts = { ...transcriptsAccount, monitorId: createdWithTranscripts.data.id };
    h.publishNewUploads();
  });

  it("check() finds the new uploads for 1 credit; events() and get({since}) show the event it made", async () => {
    const { verbatim, monitorId, charges } = plain;
    const check = await verbatim.monitors.check(monitorId);
    expect(check.data.new_videos).toBe(newUploads.length);
    expect(check.data.event?.data.videos.map((video) => video.videoId)).toEqual([...newUploads]);
    expect(check.usage).toMatchObject({ credits_spent: 1, balance: 49 });
    expect(await charges()).toEqual([{ delta: -1, operation: "POST /monitors/{monitorId}/check" }]);

    const events = await verbatim.monitors.events(monitorId);
    expect(events.data).toMatchObject({ kind: "monitor_event_list", monitor_id: monitorId, next_cursor: null });
    expect(events.data.events.map((event) => [event.id, event.type])).toEqual([
      [check.data.event?.id, "monitor.videos"],
    ]);

    const eventId = check.data.event?.id ?? "";
    expect((await verbatim.monitors.get(monitorId)).data).toMatchObject({ has_new: true, last_event_id: eventId });
    expect((await verbatim.monitors.get(monitorId, { since: eventId })).data.has_new).toBe(false);
    expect((await verbatim.monitors.list({ since: eventId })).data).toMatchObject({ has_new: false });

    const again = await verbatim.monitors.check(monitorId);
    expect(again.data).toMatchObject({ new_videos: 0, event: null });
    expect(again.usage.credits_spent).toBe(0);
  });

  it("allEvents() yields every event newest first across pages, and with since only the newer ones", async () => {
    const { verbatim, monitorId } = withTranscripts;
    await verbatim.monitors.check(monitorId);
    const everyEvent = (await verbatim.monitors.events(monitorId, { limit: 100 })).data.events.map((event) => event.id);
    // The videos event and one transcript event per new upload.
    expect(everyEvent).toHaveLength(1 + newUploads.length);

    const walked = [];
    for await (const event of verbatim.monitors.allEvents(monitorId, { limit: 1 })) walked.push(event.id);
    expect(walked).toEqual(everyEvent);

    const pages = [];
    for await (const page of verbatim.monitors.allEvents(monitorId, { limit: 3 }).pages()) pages.push(page);
    expect(pages.map((page) => page.data.events.length)).toEqual([3, 1]);
    expect(pages.map((page) => page.data.next_cursor === null)).toEqual([false, true]);

    const oldest = everyEvent.at(-1) ?? "";
    const newer = await verbatim.monitors.allEvents(monitorId, { since: oldest, limit: 2 }).toArray();
    expect(newer.map((event) => event.id)).toEqual(everyEvent.slice(0, -1));
    const firstTwo = await verbatim.monitors.allEvents(monitorId, { limit: 1 }).toArray(2);
    expect(firstTwo.map((event) => event.id)).toEqual(everyEvent.slice(0, 2));
  });
});

describe("update and delete", () => {
  it("update() pauses with a name cleared, then resumes on a new interval", async () => {
    const { verbatim } = await newAccount();
    const created = await verbatim.monitors.create({ target: channelUrl, name: "to clear", interval_minutes: 60 });
    const monitorId = created.data.id;
    const paused = await verbatim.monitors.update(monitorId, { status: "paused", name: null });
    expect(paused.data).toMatchObject({ status: "paused", name: null, next_check_at: null, interval_minutes: 60 });
    h.clock.advanceMinutes(30);
    const resumed = await verbatim.monitors.update(monitorId, { status: "active", interval_minutes: 15 });
    expect(resumed.data).toMatchObject({ status: "active", interval_minutes: 15, name: null });
    expect(resumed.data.next_check_at).toBe(new Date(h.clock.now().getTime() + 15 * 60_000).toISOString());
    expect((await verbatim.monitors.get(monitorId)).data).toMatchObject({ status: "active", interval_minutes: 15 });
  });

  it("delete() removes the monitor: it is gone from list() and get() throws 404", async () => {
    const { verbatim } = await newAccount();
    const monitor = (await verbatim.monitors.create({ target: channelUrl })).data;
    const deleted = await verbatim.monitors.delete(monitor.id);
    expect(deleted.data).toEqual({ kind: "monitor_deleted", id: monitor.id });
    expect((await verbatim.monitors.list()).data.monitors).toEqual([]);
    const error = await rejectionOf(verbatim.monitors.get(monitor.id));
    expect(error).toBeInstanceOf(RequestError);
    expect(error).toMatchObject({ status: 404, code: "not_found" });
  });
});

describe("errors", () => {
  it("every method throws RequestError not_found (404) for a monitor the account does not have", async () => {
    const owner = await newAccount();
    const othersMonitor = (await owner.verbatim.monitors.create({ target: channelUrl })).data.id;
    const { verbatim } = await newAccount();
    for (const monitorId of ["mon_01JD7XJ2Q4ZB8N6R0S2T4V6X8Y", othersMonitor]) {
      const calls: Array<[string, () => Promise<unknown>]> = [
        ["get", () => verbatim.monitors.get(monitorId)],
        ["update", () => verbatim.monitors.update(monitorId, { name: "mine" })],
        ["check", () => verbatim.monitors.check(monitorId)],
        ["events", () => verbatim.monitors.events(monitorId)],
        ["allEvents", () => verbatim.monitors.allEvents(monitorId).toArray()],
        ["delete", () => verbatim.monitors.delete(monitorId)],
      ];
      for (const [method, call] of calls) {
        const error = await rejectionOf(call());
        expect(error, `${method} ${monitorId}`).toBeInstanceOf(RequestError);
        expect(error, `${method} ${monitorId}`).toMatchObject({ status: 404, code: "not_found", number: 1301 });
      }
    }
    expect((await owner.verbatim.monitors.get(othersMonitor)).data.name).toBeNull();
  });

  it("create() of a video throws InputError endpoint_platform_mismatch naming the endpoint to use", async () => {
    const { verbatim } = await newAccount();
    const error = await rejectionOf(
      verbatim.monitors.create({ target: "https://www.youtube.com/watch?v=GJLlxj_dtq8" }),
    );
    expect(error).toBeInstanceOf(InputError);
    expect(error).toMatchObject({
      status: 422,
      code: "endpoint_platform_mismatch",
      retryWith: { endpoint: "/api/v2/transcripts/video" },
    });
    expect((await verbatim.monitors.list()).data.monitors).toEqual([]);
  });
});
