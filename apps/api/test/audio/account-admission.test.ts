import { readFile } from "node:fs/promises";
import { eventually } from "@verbatim/testkit/eventually";
import { audioFixture } from "@verbatim/testkit/fake-podcast-host";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { plans } from "../../src/services/accounts/plans.ts";
import { type GeneratedMedia, generatedMedia } from "../asr/generated-media.ts";
import { ledgerOf } from "../platform/helpers.ts";
import { type Answer, expectErrorEnvelope } from "../support/http.ts";
import type { TestServer } from "../support/server.ts";
import { type AudioServer, startAudioServer } from "./harness.ts";
import { expectJobAccepted, fetchTranscript, type Loose, pollUntilFinished } from "./requests.ts";

/** A client of the same server with another account's key. */
async function clientOf(
  server: AudioServer,
  plan: "free" | "pro" | "mega",
  credits?: number,
): Promise<TestServer & { accountId: string }> {
  const { account, key } = await server.platform.accounts.create({
    plan,
    name: `${plan} admission`,
    ...(credits === undefined ? {} : { credits }),
  });
  return { ...server, key: { ...server.key, key: key.key }, accountId: account.id };
}

/** The account's transcriptions a worker has taken and not finished. */
async function runningJobsOf(server: AudioServer, accountId: string): Promise<number> {
  const [row] = await server.store.query<{ running: number }>(
    sql`select count(*)::int as running from pgboss.job
         where name = 'transcribe-audio' and state = 'active' and data->>'accountId' = ${accountId}`,
  );
  return row?.running ?? 0;
}

async function jobsOf(
  server: AudioServer,
  accountId: string,
): Promise<{ status: string; estimated_credits: number }[]> {
  return server.store.query(
    sql`select status, estimated_credits from transcript_jobs where account_id = ${accountId} order by created_at`,
  );
}

/** A Matroska file whose Segment Info says it lasts `claimedSeconds`, holding far longer audio. */
async function lyingMatroska(media: GeneratedMedia, actualSeconds: number, claimedSeconds: number): Promise<string> {
  const honest = await media.make("honest.mka", [
    ...["-f", "lavfi", "-i", `sine=frequency=300:duration=${actualSeconds}`],
    ...["-c:a", "libopus", "-b:a", "8k"],
  ]);
  const bytes = Buffer.from(await readFile(honest));
  // Duration (EBML id 0x4489), an 8-byte float in milliseconds at the default timecode scale.
  const at = bytes.indexOf(Buffer.from([0x44, 0x89, 0x88]));
  if (at < 0) throw new Error("the Matroska file has no 8-byte Duration element");
  bytes.writeDoubleBE(claimedSeconds * 1000, at + 3);
  return media.write("lying.mka", bytes);
}

describe("402 before queueing: the expected cost of an account's unfinished jobs is held against its balance", () => {
  let server: AudioServer;
  let media: GeneratedMedia;

  beforeAll(async () => {
    // No workers: accepted jobs stay unfinished, holding their expected cost.
    server = await startAudioServer({ workers: 0 });
    media = await generatedMedia();
    const elevenMinutes = await media.make("eleven-minutes.mp3", [
      ...["-f", "lavfi", "-i", "sine=frequency=300:duration=660"],
      ...["-b:a", "8k", "-ar", "8000"],
    ]);
    server.host.serveFile("/media/eleven-minutes.mp3", elevenMinutes, "audio/mpeg");
    const fortySeconds = await media.make("forty-seconds.mp3", [
      ...["-f", "lavfi", "-i", "sine=frequency=300:duration=40"],
      ...["-b:a", "8k", "-ar", "8000"],
    ]);
    server.host.serveFile("/media/forty-seconds.mp3", fortySeconds, "audio/mpeg");
  });
  afterAll(async () => {
    await server?.close();
    await media?.remove();
  });

  it("refuses an 11-minute transcription with 1 credit once the request measured its length, queueing nothing", async () => {
    const client = await clientOf(server, "pro", 1);
    const answer = await fetchTranscript(client, { video: server.host.url("/media/eleven-minutes.mp3") });
    expectErrorEnvelope(answer, 402, "insufficient_credits");
    // 660 s of MP3, encoder padding included: 12 started minutes.
    expect((answer.body as Loose).error.message).toMatch(/expected to cost 1[12] credits; the balance is 1,/);
    expect(await jobsOf(server, client.accountId)).toEqual([]);
    expect(await ledgerOf(server.store, client.accountId)).toEqual([expect.objectContaining({ kind: "grant" })]);
  });

  it("admits, of five concurrent 1-credit jobs, only the three a balance of 3 covers", async () => {
    // Mega: ten extraction slots, so all five requests run at once.
    const client = await clientOf(server, "mega", 3);
    const answers = await Promise.all(
      [1, 2, 3, 4, 5].map((copy) =>
        fetchTranscript(client, { video: server.host.url(`/media/forty-seconds.mp3?copy=${copy}`) }),
      ),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses, answers.map((answer) => answer.text).join("\n")).toEqual([202, 202, 202, 402, 402]);
    for (const refused of answers.filter((answer) => answer.status === 402)) {
      expectErrorEnvelope(refused, 402, "insufficient_credits");
      expect((refused.body as Loose).error.message).toContain("held for 3 unfinished jobs");
    }
    expect(await jobsOf(server, client.accountId)).toEqual([
      { status: "processing", estimated_credits: 1 },
      { status: "processing", estimated_credits: 1 },
      { status: "processing", estimated_credits: 1 },
    ]);
    expect(await server.platform.credits.balance(client.accountId)).toBe(3);
    const [queued] = await server.store.query<{ messages: number }>(
      sql`select count(*)::int as messages from pgboss.job where name = 'transcribe-audio' and data->>'jobId' in (select id from transcript_jobs where account_id = ${client.accountId})`,
    );
    expect(queued?.messages).toBe(3);
  });
});

describe("the inline path trusts no declared length", () => {
  let server: AudioServer;
  let media: GeneratedMedia;

  beforeAll(async () => {
    server = await startAudioServer({ workers: 0 });
    media = await generatedMedia();
    server.host.serveFile("/media/lying.mka", await lyingMatroska(media, 660, 5), "audio/x-matroska");
  });
  afterAll(async () => {
    await server?.close();
    await media?.remove();
  });

  it("stops decoding an MKA that claims 5 s and holds 11 minutes at the inline limit, and answers 202", async () => {
    const answer = await fetchTranscript(server, { video: server.host.url("/media/lying.mka") });
    expectJobAccepted(answer, { platform: "file", balance: await server.platform.credits.balance(server.account.id) });
    expect(await ledgerOf(server.store, server.account.id)).toEqual([expect.objectContaining({ kind: "grant" })]);
  });
});

describe("429 rate_limited: one account's unfinished jobs are capped by its plan", () => {
  let server: AudioServer;

  beforeAll(async () => {
    server = await startAudioServer({ inlineAudioSeconds: 0, workers: 0 });
    server.host.serveFile("/media/jfk.wav", audioFixture("whisper-cpp/jfk.wav"), "audio/wav");
  });
  afterAll(() => server?.close());

  it(`queues ${plans.free.maxUnfinishedJobs} jobs of a Free account, refuses the next with Retry-After, and still admits another account`, async () => {
    const free = await clientOf(server, "free");
    const send = (client: TestServer, copy: string): Promise<Answer> =>
      fetchTranscript(client, { video: server.host.url(`/media/jfk.wav?copy=${copy}`) });
    for (let copy = 0; copy < plans.free.maxUnfinishedJobs; copy++) {
      expect((await send(free, `free-${copy}`)).status).toBe(202);
    }
    const refused = await send(free, "free-over");
    expectErrorEnvelope(refused, 429, "rate_limited");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await jobsOf(server, free.accountId)).toHaveLength(plans.free.maxUnfinishedJobs);
    expect(await ledgerOf(server.store, free.accountId)).toEqual([expect.objectContaining({ kind: "grant" })]);

    const pro = await clientOf(server, "pro");
    expect((await send(pro, "pro")).status).toBe(202);
  });
});

describe("fairness and a throughput floor: one account's trickling downloads leave workers to the others", () => {
  let server: AudioServer;

  beforeAll(async () => {
    server = await startAudioServer({
      inlineAudioSeconds: 0,
      workers: 2,
      downloadFloor: { bytesPerSecond: 100, windowSeconds: 3 },
    });
    // Answers at once, then sends one byte a second for ten minutes.
    server.host.trickle("/media/trickle.mp3", {
      chunkBytes: 1,
      chunks: 600,
      intervalMs: 1_000,
      contentType: "audio/mpeg",
    });
    server.host.serveFile("/media/jfk.wav", audioFixture("whisper-cpp/jfk.wav"), "audio/wav");
  });
  afterAll(() => server?.close());

  it("completes another account's job while a Free account's trickling jobs are still running", async () => {
    const trickling = await clientOf(server, "free");
    const tricklingJobs: string[] = [];
    for (const copy of [1, 2, 3]) {
      const answer = await fetchTranscript(trickling, { video: server.host.url(`/media/trickle.mp3?copy=${copy}`) });
      expect(answer.status, answer.text).toBe(202);
      tricklingJobs.push((answer.body as Loose).poll_url);
    }
    // The workers take the trickling account's jobs first: one holds a worker before the other account asks.
    await eventually(async () => (await runningJobsOf(server, trickling.accountId)) > 0, 30_000);
    const other = await clientOf(server, "pro");
    const accepted = await fetchTranscript(other, { video: server.host.url("/media/jfk.wav") });
    expect(accepted.status, accepted.text).toBe(202);
    const { answer } = await pollUntilFinished(other, (accepted.body as Loose).poll_url, 45_000);
    expect((answer.body as Loose).status, answer.text).toBe("completed");
    // Holding both workers, the trickling jobs would have kept this one queued until they failed.
    expect(await jobsOf(server, trickling.accountId)).toEqual([
      expect.objectContaining({ status: "processing" }),
      expect.objectContaining({ status: "processing" }),
      expect.objectContaining({ status: "processing" }),
    ]);

    // The floor ends each trickling download with a timeout, long before its ten minutes.
    const first = await pollUntilFinished(trickling, tricklingJobs[0] as string, 45_000);
    expect((first.answer.body as Loose).error, first.answer.text).toMatchObject({
      code: "timeout",
      message: expect.stringContaining("bytes per second"),
    });
  }, 90_000);
});
