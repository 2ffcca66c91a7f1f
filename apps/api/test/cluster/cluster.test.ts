import type { DatabaseProxy } from "@verbatim/testkit/database-proxy";
import { eventually } from "@verbatim/testkit/eventually";
import { audioFixture, type FakePodcastHost, startFakePodcastHost } from "@verbatim/testkit/fake-podcast-host";
import { FakeYoutube, recordedVideos } from "@verbatim/testkit/fake-youtube";
import { serveFreshUploadOnEveryCall } from "@verbatim/testkit/recorded-channel";
import { registerRecordedLists } from "@verbatim/testkit/youtube-lists";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createPlatform } from "../../src/assembly/platform.ts";
import { plans, pollsPerMinute } from "../../src/services/accounts/plans.ts";
import type { Platform } from "../../src/services/process-services.ts";
import { openPostgresStore, type Store } from "../../src/store/database.ts";
import { type GeneratedMedia, generatedMedia } from "../asr/generated-media.ts";
import type { Loose } from "../audio/requests.ts";
import { createPostgresDatabase, type PostgresDatabase } from "../support/store.ts";
import { type Receiver, startReceiver } from "../webhooks/receiver.ts";
import { busiestMinute, compareLedger, deliveriesById, requestFigures, retriedSdkCalls } from "./checks.ts";
import { Cluster, type ClusterProcess } from "./cluster.ts";
import { type ClientAccount, type Exchange, every, Traffic } from "./traffic.ts";

/**
 * How long the load runs: `VERBATIM_CLUSTER_SECONDS`, 100 by default so CI stays in budget. The
 * four faults come at a tenth, a quarter, 45 % and 65 % of it, 15 s or more apart by default.
 */
const durationSeconds = Number(process.env.VERBATIM_CLUSTER_SECONDS || 100);
/** How long the cluster gets after the load to finish its jobs, deliveries and checks. */
const drainMs = 120_000;
/** Long enough that recognition is still under way when its worker is killed (about 5 s of it on one core). */
const longMediaSeconds = 240;
const outageMs = 5_000;
/** How slow YouTube answers around the cut, so that requests are in flight when it comes. */
const upstreamLatencyAtOutageMs = 2_000;

const at = (start: number, fraction: number) => start + durationSeconds * 1000 * fraction;
const sleepUntil = (time: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, time - Date.now())));

describe.runIf(process.env.DATABASE_URL)("a cluster of 2 API and 2 worker processes on PostgreSQL", () => {
  it(
    "under load, through killed and stopped processes and a database outage, loses nothing, charges once and keeps its limits",
    async () => {
      const started = Date.now();
      const open: OpenResources = {};
      const keep = <Name extends keyof OpenResources>(name: Name, value: NonNullable<OpenResources[Name]>) => {
        open[name] = value;
        return value;
      };
      try {
        const media = keep("media", await generatedMedia());
        const short = await media.make("short.wav", ["-i", audioFixture("whisper-cpp/jfk.wav"), "-t", "4"]);
        const long = await media.speech("long.wav", longMediaSeconds);
        const host = keep("host", await startFakePodcastHost());
        host.serveFile("/media/short.wav", short, "audio/wav");
        host.serveFile("/media/long.wav", long, "audio/wav");
        const receiver = keep("receiver", await startReceiver());
        const fake = keep("fake", await FakeYoutube.start());
        fake.serveRecordedVideos();
        const lists = registerRecordedLists(fake);
        serveFreshUploadOnEveryCall(fake);

        const database = keep("database", await createPostgresDatabase(process.env.DATABASE_URL as string));
        const { cluster, proxy } = await Cluster.start(database.url, fake.origin);
        Object.assign(open, { cluster, proxy });
        const firstApi = await cluster.startApi("api-1");
        const proKey = (await firstApi.service.waitForLine(/^\s+vb_live_/, 30_000)).trim();
        await cluster.startApi("api-2");
        await Promise.all([cluster.startWorker("worker-1"), cluster.startWorker("worker-2")]);

        // The harness reads and writes the database directly, never through the proxy.
        const store = keep("store", await openPostgresStore(database.url, { poolSize: 2 }));
        const platform = keep("platform", await createPlatform(store, { now: () => new Date() }));
        const accountOf = async (plan: "pro" | "free", name: string): Promise<[ClientAccount, string]> => {
          const { account, key } = await platform.accounts.create({ plan, name });
          return [clientAccount(name, key.key, plan), account.id];
        };
        const [proAccountId] = (
          await store.query<{ id: string }>(sql`select id from accounts where name = 'development'`)
        ).map((row) => row.id);
        const pro = clientAccount("pro (plain HTTP)", proKey, "pro");
        const [sdkAccount, sdkAccountId] = await accountOf("pro", "pro (SDK)");
        const [free, freeAccountId] = await accountOf("free", "free (over its limit)");
        const [longAccount, longAccountId] = await accountOf("pro", "long job");
        const accounts: Array<[ClientAccount, string]> = [
          [pro, proAccountId as string],
          [sdkAccount, sdkAccountId],
          [free, freeAccountId],
          [longAccount, longAccountId],
        ];

        const traffic = new Traffic(() => cluster.apiUrls());
        const sdk = traffic.sdk(sdkAccount);
        const monitorIds: string[] = [];
        for (let index = 0; index < 3; index++) {
          const monitor = await sdk.monitors.create({
            target: lists.channel.target.kind === "channel" ? lists.channel.target.channel : "",
            name: `cluster ${index}`,
            webhook_url: receiver.url("/monitors"),
          });
          monitorIds.push(monitor.data.id);
        }

        const loadStart = Date.now();
        const until = loadStart + durationSeconds * 1000;
        const drainUntil = until + drainMs;
        console.log(`cluster load: ${durationSeconds} s (VERBATIM_CLUSTER_SECONDS)`);

        // Job ids as clients learned them, with the account that polls each.
        const jobs = new Map<string, ClientAccount>();
        const pollers: Promise<void>[] = [];
        const pollJob = (account: ClientAccount, jobId: string) => {
          if (jobs.has(jobId)) return;
          jobs.set(jobId, account);
          pollers.push(
            (async () => {
              while (Date.now() < drainUntil) {
                const polled = await traffic.send(account, "GET", `/transcripts/jobs/${jobId}`);
                if (polled.status === 200 && polled.body?.status !== "processing") return;
                await new Promise((resolve) => setTimeout(resolve, 1_000));
              }
            })(),
          );
        };

        const videos = [recordedVideos.captioned, recordedVideos.json3Captioned];
        const listBodies = [
          { path: "/transcripts/channel", body: { channel: "https://www.youtube.com/user/creativecommons" } },
          {
            path: "/transcripts/playlist",
            body: { playlist: "https://www.youtube.com/playlist?list=PLoumn5BIsUDeGF1vy5Nylf_RJKn5aL_nr" },
          },
          { path: "/transcripts/search", body: { query: "test" } },
        ];
        const cursorHandOvers: Array<{ from: string; to: string; status: Exchange["status"] }> = [];
        const dues = new Map<string, number>(monitorIds.map((id) => [id, 0]));
        const failedChecks: Array<{ id: string; error: unknown }> = [];
        const faults: Record<string, number> = {};
        const fault = (name: string) => {
          faults[name] = (faults[name] ?? 0) + 1;
        };
        let outage: { from: number; to: number; cut: number; refused: number } | undefined;
        let killedJob: string | undefined;
        let gracefulExit: number | null | undefined;

        const injectFaults = async () => {
          // A long transcription, alone on its account: the transcription slot it holds names its worker's pid.
          await sleepUntil(at(loadStart, 0.1));
          const accepted = await traffic.send(longAccount, "POST", "/transcripts/video", {
            video: host.url("/media/long.wav"),
            callback_url: receiver.url("/jobs"),
          });
          killedJob = accepted.body?.job_id;
          if (killedJob) pollJob(longAccount, killedJob);
          const running = await workerRunning(store, killedJob, longAccountId, cluster.workers());
          const killedWorker = await cluster.stop(running, "SIGKILL");
          fault(`worker SIGKILLed mid-transcription (exit ${killedWorker})`);
          await cluster.startWorker("worker-3");

          await sleepUntil(at(loadStart, 0.25));
          const [killedApi] = cluster.apis();
          if (killedApi) await cluster.crash(killedApi);
          fault("API process SIGKILLed");
          await cluster.startApi("api-3");
          if (killedApi) cluster.forget(killedApi);

          // Requests admitted and waiting on a slow YouTube when the database goes: they must still answer 503, not 500.
          await sleepUntil(at(loadStart, 0.45));
          fake.latencyMs = upstreamLatencyAtOutageMs;
          const inFlight = listBodies.flatMap((list) => [
            traffic.send(pro, "POST", list.path, { ...list.body, limit: 5 }),
            sdk.transcripts.search({ query: "test", limit: 5 }),
          ]);
          await new Promise((resolve) => setTimeout(resolve, upstreamLatencyAtOutageMs / 2));
          const from = Date.now();
          const { cut, refused } = await proxy.outage(outageMs);
          outage = { from, to: Date.now(), cut, refused };
          fake.latencyMs = 0;
          await Promise.allSettled(inFlight);
          fault("database refused connections");

          await sleepUntil(at(loadStart, 0.65));
          const original = cluster.workers().find((worker) => worker.name !== "worker-3");
          if (original) gracefulExit = await cluster.stop(original, "SIGTERM");
          fault("worker stopped with SIGTERM");
          await cluster.startWorker("worker-4");
        };

        await Promise.all([
          injectFaults(),
          every(1_000, until, (round) =>
            traffic.send(pro, "POST", "/transcripts/video", { video: videos[round % videos.length] }),
          ),
          every(3_000, until, async (round) => {
            const list = listBodies[round % listBodies.length] as (typeof listBodies)[number];
            const first = await traffic.send(pro, "POST", list.path, { ...list.body, limit: 5 }, { api: round });
            const cursor = first.body?.data?.next_cursor;
            if (first.status !== 200 || !cursor) return;
            const next = await traffic.send(
              pro,
              "POST",
              list.path,
              { ...list.body, limit: 5, cursor },
              { api: round + 1 },
            );
            cursorHandOvers.push({ from: first.api, to: next.api, status: next.status });
          }),
          every(1_500, until, (round) => sdk.transcripts.video({ video: videos[round % videos.length] as string })),
          every(5_000, until, () => sdk.transcripts.batch({ video_ids: videos })),
          every(4_000, until, async (round) => {
            const accepted = await sdk.transcripts.video({
              video: host.url(`/media/short.wav?episode=${round}`),
              callback_url: receiver.url("/jobs"),
            });
            if ("job_id" in accepted) pollJob(sdkAccount, accepted.job_id);
          }),
          every(2_000, until, () =>
            traffic.send(free, "POST", "/transcripts/video", { video: recordedVideos.captioned }),
          ),
          every(4_000, until, async () => {
            const made = await store.query<{ id: string; last_error: unknown }>(
              sql`with checked as (
                    select id, last_error from monitors
                     where claimed_until is null and next_check_at > now() + interval '1 minute' for update)
                  update monitors set next_check_at = now() from checked where monitors.id = checked.id
                  returning checked.id, checked.last_error`,
            );
            for (const monitor of made) {
              dues.set(monitor.id, (dues.get(monitor.id) ?? 0) + 1);
              if (monitor.last_error) failedChecks.push({ id: monitor.id, error: monitor.last_error });
            }
          }),
        ]);
        const loadSeconds = (Date.now() - loadStart) / 1000;

        // Everything under way finishes: jobs, their polls, deliveries and the last monitor checks.
        await eventually(
          async () =>
            (await store.query(sql`select 1 from transcript_jobs where status = 'processing'`)).length === 0 &&
            (await store.query(sql`select 1 from webhook_deliveries where status = 'pending'`)).length === 0 &&
            (
              await store.query(
                sql`select 1 from monitors where claimed_until is not null or next_check_at <= now() + interval '1 minute'`,
              )
            ).length === 0,
          drainMs,
        ).catch((error: unknown) => {
          throw new Error(`jobs, deliveries or monitor checks still unfinished ${drainMs} ms after the load`, {
            cause: error,
          });
        });
        await Promise.all(pollers);
        for (const monitor of await store.query<{ id: string; last_error: unknown }>(
          sql`select id, last_error from monitors where last_error is not null`,
        )) {
          failedChecks.push({ id: monitor.id, error: monitor.last_error });
        }

        const exchanges = traffic.exchanges;
        const jobRows = await store.query<{
          id: string;
          account_id: string;
          status: string;
          request_id: string;
          credits: number | null;
          runs: number;
          completed_runs: number;
          retries: number;
          charges: number;
          charged: number;
        }>(sql`
          select j.id, j.account_id, j.status, j.request_id, (j.usage->>'credits_spent')::float8 as credits,
                 (select count(*)::int from pgboss.job b where b.data->>'jobId' = j.id) as runs,
                 (select count(*)::int from pgboss.job b where b.data->>'jobId' = j.id and b.state = 'completed') as completed_runs,
                 (select coalesce(max(b.retry_count), 0)::int from pgboss.job b where b.data->>'jobId' = j.id) as retries,
                 (select count(*)::int from credit_ledger l where l.request_id = j.request_id and l.kind = 'charge') as charges,
                 (select coalesce(-sum(l.delta), 0)::float8 from credit_ledger l where l.request_id = j.request_id and l.kind = 'charge') as charged
            from transcript_jobs j`);
        const acceptedJobs = new Set(
          exchanges.flatMap((exchange) =>
            exchange.status === 202 && exchange.body?.job_id ? [exchange.body.job_id as string] : [],
          ),
        );
        const jobsById = new Map(jobRows.map((job) => [job.id, job]));
        const lostJobs = [...acceptedJobs].filter((id) => !jobsById.has(id));
        const unfinishedJobs = jobRows.filter(
          (job) => job.status !== "completed" || job.runs !== 1 || job.completed_runs !== 1,
        );
        // What the polls said each finished job cost: the ledger must hold that, once.
        const polledCredits = new Map(
          exchanges.flatMap((exchange) =>
            exchange.kind === "poll" && exchange.body?.status === "completed"
              ? [[exchange.body.job_id as string, exchange.body.usage?.credits_spent as number]]
              : [],
          ),
        );
        const wrongCharges = jobRows.filter(
          (job) =>
            job.charges !== 1 ||
            job.charged !== job.credits ||
            (polledCredits.has(job.id) && polledCredits.get(job.id) !== job.charged),
        );
        const jobRequestIds = new Set(jobRows.map((job) => job.request_id));

        const deliveries = await store.query<{ id: string; status: string; event_type: string; attempts: number }>(
          sql`select id, status, event_type, attempts from webhook_deliveries`,
        );
        const received = deliveriesById(receiver.requests);
        const undelivered = deliveries.filter(
          (delivery) => delivery.status !== "delivered" || !received.has(delivery.id),
        );
        const jobIdsPerEvent = new Map<string, Set<string>>();
        for (const request of receiver.requests.filter((request) => request.path === "/jobs")) {
          const jobId = (JSON.parse(request.body) as Loose).job_id as string;
          jobIdsPerEvent.set(
            jobId,
            (jobIdsPerEvent.get(jobId) ?? new Set()).add(String(request.headers["webhook-id"])),
          );
        }
        const unstableIds = [...jobIdsPerEvent].filter(([, ids]) => ids.size !== 1);
        const callbacksMissing = jobRows.filter((job) => !jobIdsPerEvent.has(job.id));

        const checks = await store.query<{ monitor_id: string; events: number }>(
          sql`select monitor_id, count(*)::int as events from monitor_events where type = 'monitor.videos' group by monitor_id`,
        );
        const checksPerMonitor = new Map(checks.map((row) => [row.monitor_id, row.events]));
        const checkMismatches = monitorIds.filter((id) => checksPerMonitor.get(id) !== dues.get(id));

        const ledgers = await Promise.all(
          accounts.map(([account, id]) => compareLedger(store, id, account, exchanges, jobRequestIds)),
        );
        const busiest = accounts.flatMap(([account]) =>
          (["request", "poll"] as const).map((allowance) => ({
            account: account.name,
            allowance,
            busiest: busiestMinute(exchanges, account.name, allowance),
            limit: allowance === "request" ? account.requestsPerMinute : account.pollsPerMinute,
          })),
        );
        const duringOutage = exchanges.filter(
          // Answered while the database was away, or sent then: in flight at any moment of the outage.
          (exchange) => outage && exchange.sentAt <= outage.to && exchange.answeredAt >= outage.from,
        );
        const outageMisanswers = duringOutage.filter(
          (exchange) =>
            typeof exchange.status !== "number" ||
            (exchange.status >= 500 &&
              !(exchange.status === 503 && exchange.code === "overloaded" && exchange.retryAfter)),
        );
        const serverErrors = exchanges.filter((exchange) => exchange.status === 500);
        const retried = retriedSdkCalls(exchanges);
        const chargedCredits = new Map(
          (
            await store.query<{ request_id: string; credits: number }>(
              sql`select request_id, -sum(delta)::float8 as credits from credit_ledger where kind in ('charge', 'reversal') group by request_id`,
            )
          ).map((row) => [row.request_id, Number(row.credits)]),
        );
        // A retried call is charged once: under the request its answer names (a replay names the first), never another attempt.
        const retriedChargedTwice = [...retried.values()].filter((attempts) => {
          const answer = attempts.findLast((attempt) => typeof attempt.status === "number" && attempt.status < 300);
          const otherAttemptsCharged = attempts.some(
            (attempt) =>
              attempt.requestId && attempt.requestId !== answer?.requestId && chargedCredits.has(attempt.requestId),
          );
          const answerCharged = answer?.requestId ? (chargedCredits.get(answer.requestId) ?? 0) : 0;
          const answerCost = answer?.body?.job_id ? answerCharged : (answer?.body?.usage?.credits_spent ?? 0);
          return otherAttemptsCharged || answerCharged !== answerCost;
        });
        // The check above holds of nothing unless some retried call was answered and charged.
        const retriedAnsweredAndCharged = [...retried.values()].filter((attempts) => {
          const answer = attempts.findLast((attempt) => typeof attempt.status === "number" && attempt.status < 300);
          return answer?.requestId !== undefined && (chargedCredits.get(answer.requestId) ?? 0) > 0;
        });
        // Nothing runs a retried key any more once its attempt has answered: a 409 "still running" would be a key left locked.
        const retriedRefusedAsRunning = [...retried.values()].filter(
          (attempts) => attempts.at(-1)?.code === "idempotency_conflict",
        );
        const finishedPerJob = new Map<string, number>();
        for (const line of cluster.started.flatMap((process) => process.service.lines)) {
          if (!line.includes('"transcription job finished"')) continue;
          const jobId = (JSON.parse(line) as Loose).job_id as string;
          finishedPerJob.set(jobId, (finishedPerJob.get(jobId) ?? 0) + 1);
        }
        const finishedTwice = [...finishedPerJob].filter(([, times]) => times > 1);

        const lost = {
          "jobs accepted but missing": lostJobs.length,
          "jobs not completed exactly once": unfinishedJobs.length,
          "jobs not charged exactly once": wrongCharges.length,
          "jobs run to completion more than once (worker logs)": finishedTwice.length,
          "SDK calls retried and charged other than once": retriedChargedTwice.length,
          "SDK calls retried and refused as still running": retriedRefusedAsRunning.length,
          "webhook deliveries not received": undelivered.length,
          "job callbacks missing": callbacksMissing.length,
          "monitors checked other than once per due time": checkMismatches.length,
          "monitor checks failed": failedChecks.length,
          "processes that exited unasked": cluster.crashed().length,
          "answers whose charge differs": ledgers.reduce((sum, ledger) => sum + ledger.mismatched.length, 0),
        };
        console.log(
          [
            "==== cluster figures ====",
            `load: ${loadSeconds.toFixed(0)} s (VERBATIM_CLUSTER_SECONDS=${durationSeconds}); whole test ${((Date.now() - started) / 1000).toFixed(0)} s`,
            `requests by kind and status: ${JSON.stringify(requestFigures(exchanges), null, 1)}`,
            `cursors handed to the other API process: ${cursorHandOvers.length} (${cursorHandOvers.filter((handOver) => handOver.status === 200).length} answered 200)`,
            `SDK calls retried with one Idempotency-Key: ${retried.size} (${[...retried.values()].reduce((sum, attempts) => sum + attempts.length, 0)} attempts, ${retriedAnsweredAndCharged.length} answered and charged)`,
            `jobs: ${jobRows.length} (${acceptedJobs.size} seen accepted, ${polledCredits.size} seen completed by polls, ${jobRows.filter((job) => job.retries > 0).length} retried); killed mid-way: ${killedJob} retries ${jobsById.get(killedJob ?? "")?.retries}`,
            `deliveries: ${deliveries.length} (${deliveries.filter((delivery) => delivery.status === "delivered").length} delivered, ${receiver.requests.length} requests received)`,
            `monitor checks: ${JSON.stringify(Object.fromEntries(monitorIds.map((id) => [id, { due: dues.get(id), checked: checksPerMonitor.get(id) ?? 0 }])))}`,
            `faults: ${JSON.stringify(faults)}; outage ${JSON.stringify(outage)}; SIGTERMed worker exited ${gracefulExit}`,
            `during the outage: ${JSON.stringify(requestFigures(duringOutage))}`,
            `busiest minute per allowance: ${JSON.stringify(busiest)}`,
            `ledgers: ${JSON.stringify(ledgers.map(({ mismatched, ...ledger }) => ({ ...ledger, mismatched: mismatched.length })))}`,
            `lost: ${JSON.stringify(lost)}`,
            "=========================",
          ].join("\n"),
        );

        const context = (value: unknown) => JSON.stringify(value, null, 1).slice(0, 8_000);
        expect(
          lost,
          context({
            lostJobs,
            unfinishedJobs,
            wrongCharges,
            finishedTwice,
            retriedChargedTwice,
            retriedRefusedAsRunning,
            undelivered,
            callbacksMissing,
            checkMismatches,
            failedChecks,
            mismatchedCharges: ledgers.flatMap((ledger) =>
              ledger.mismatched.map((mismatch) => ({
                ...mismatch,
                account: ledger.account,
                attempts: exchanges
                  .filter((exchange) => exchange.requestId === mismatch.requestId)
                  .map(({ kind, via, api, status, idempotencyKey, replayed, body }) => ({
                    kind,
                    via,
                    api,
                    status,
                    idempotencyKey,
                    replayed,
                    usage: body?.usage,
                    rows: (body?.data?.results ?? body?.results)?.map((row: Loose) =>
                      row.status === "error" ? row.error?.code : row.status,
                    ),
                  })),
              })),
            ),
            crashed: cluster
              .crashed()
              .map((process) => ({ name: process.name, stderr: process.service.lines.slice(-5) })),
          }),
        ).toEqual(Object.fromEntries(Object.keys(lost).map((name) => [name, 0])));
        expect(jobsById.get(killedJob ?? "")?.retries, "the long job's worker was killed while it ran").toBeGreaterThan(
          0,
        );
        expect(gracefulExit, "a worker stopped with SIGTERM exits 0").toBe(0);
        expect(unstableIds, context(unstableIds)).toEqual([]);
        const logsOf = (failures: Exchange[]) =>
          cluster.started.flatMap((process) =>
            process.service.lines.filter((line) =>
              failures.some((failure) => failure.requestId && line.includes(failure.requestId)),
            ),
          );
        expect(serverErrors, context({ logs: logsOf(serverErrors), serverErrors })).toEqual([]);
        expect(duringOutage.length, "requests were sent while the database was away").toBeGreaterThan(0);
        expect(
          duringOutage.filter((exchange) => exchange.status === 503).length,
          context(requestFigures(duringOutage)),
        ).toBeGreaterThan(0);
        expect(outageMisanswers, context(outageMisanswers)).toEqual([]);
        expect(
          cursorHandOvers.filter(
            (handOver) => typeof handOver.status === "number" && handOver.status < 500 && handOver.status !== 200,
          ),
          context(cursorHandOvers),
        ).toEqual([]);
        expect(
          cursorHandOvers.filter((handOver) => handOver.from !== handOver.to && handOver.status === 200).length,
          `a cursor one API process gave out was answered by another: ${context(cursorHandOvers)}`,
        ).toBeGreaterThan(0);
        expect(
          retriedAnsweredAndCharged.length,
          `an SDK call was retried, then answered and charged once: ${context([...retried.values()])}`,
        ).toBeGreaterThan(0);
        for (const limit of busiest) expect(limit.busiest, context(limit)).toBeLessThanOrEqual(limit.limit);
        expect(
          exchanges.filter((exchange) => exchange.account === free.name && exchange.status === 429).length,
          "the Free account went over its limit",
        ).toBeGreaterThan(0);
        for (const ledger of ledgers) {
          expect(ledger.mismatched, context(ledger)).toEqual([]);
          expect(ledger.chargedForAnswered, context(ledger)).toBe(ledger.answeredCredits);
          expect(ledger.chargedUnanswered, context(ledger)).toBeLessThanOrEqual(ledger.postsWithLostAnswers);
          expect(ledger.ledgerSum, context(ledger)).toBe(ledger.balance);
        }
      } finally {
        await open.cluster?.killAll();
        await open.proxy?.close();
        open.platform?.slots.close();
        await open.store?.close();
        await open.database?.drop();
        await open.fake?.close();
        await open.host?.close();
        await open.receiver?.close();
        await open.media?.remove();
      }
    },
    (durationSeconds + 300) * 1000,
  );
});

/** What the test opened, closed again whatever happens. */
interface OpenResources {
  database?: PostgresDatabase;
  cluster?: Cluster;
  proxy?: DatabaseProxy;
  store?: Store;
  platform?: Platform;
  fake?: FakeYoutube;
  host?: FakePodcastHost;
  receiver?: Receiver;
  media?: GeneratedMedia;
}

function clientAccount(name: string, key: string, plan: "pro" | "free"): ClientAccount {
  return { name, key, requestsPerMinute: plans[plan].requestsPerMinute, pollsPerMinute: pollsPerMinute(plans[plan]) };
}

/** Waits until the job's recognition is under way, and answers the worker whose transcription slot it holds. */
async function workerRunning(
  store: Store,
  jobId: string | undefined,
  accountId: string,
  workers: ClusterProcess[],
): Promise<ClusterProcess> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const [job] = await store.query<{ progress: number }>(
      sql`select progress from transcript_jobs where id = ${jobId ?? ""}`,
    );
    const [lease] = await store.query<{ holder: string }>(
      sql`select holder from slot_leases where account_id = ${accountId} and pool = 'transcription'`,
    );
    const worker = workers.find((candidate) => lease?.holder.split(":")[1] === String(candidate.service.process.pid));
    if (job && job.progress > 0 && worker) return worker;
    if (Date.now() > deadline)
      throw new Error(`job ${jobId} never got under way on a worker: ${JSON.stringify({ job, lease })}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
