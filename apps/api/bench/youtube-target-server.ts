// The child process of `bench/youtube.ts`: serves `POST /api/v2/transcripts/video` (the real API,
// wired to the parent's loopback fake YouTube) or a bare Express route answering the same body,
// through bench/target-child.ts as bench/target-server.ts serves /me.
import { sql } from "drizzle-orm";
import express from "express";
import { createYoutubeAdapter } from "../src/adapters/youtube/index.ts";
import type { TargetName } from "./protocol.ts";
import { apiTarget, bareTarget, durableChargeTarget, serveTarget, type Target } from "./target-child.ts";

/** How this child builds its target; passed as JSON in `argv[2]`. */
export interface YoutubeTargetSpec {
  /** The bare route, the bare route charging on PostgreSQL (`durable`), or the transcript operation on one of the two engines. */
  name: TargetName;
  /** The fresh database of the `postgres` target, which the `durable` target charges in too. */
  databaseUrl?: string;
  /** The loopback fake YouTube the API fetches captions from. */
  youtubeOrigin?: string;
  /** Accounts to create, one key each (one per connection of the load). */
  accounts?: number;
  /** The JSON body the bare routes answer: a real transcript response captured from the API (as sent, for `durable`). */
  body?: unknown;
}

/** The operation under load (bench/youtube.ts requests it), and the path of the bare route beside it. */
const transcriptPath = "/api/v2/transcripts/video";

async function buildTarget(spec: YoutubeTargetSpec): Promise<Target> {
  if (spec.name === "bare") {
    // express.json reads the request body as the API's router does, so both consume the same bytes.
    return bareTarget(spec.body, (app, answer) => app.post(transcriptPath, express.json(), answer));
  }
  if (spec.name === "durable") {
    if (!spec.databaseUrl) throw new Error("the durable-charge target needs the postgres target's database");
    const body = typeof spec.body === "string" ? spec.body : JSON.stringify(spec.body);
    return durableChargeTarget(spec.databaseUrl, body, (app, answer) =>
      app.post(transcriptPath, express.json(), answer),
    );
  }
  if (!spec.youtubeOrigin) throw new Error("the transcript targets need the fake YouTube's origin");
  return apiTarget(spec, {
    accounts: spec.accounts ?? 1,
    credits: null,
    // Benchmark-only setting, as in bench/target-server.ts: every plan allows at most 900 requests per
    // minute per account, which the load uses up in seconds and a 429 is cheaper than a 200 (the
    // polling allowance is raised too: /me is measured beside the transcripts). The limits live in
    // the `plans` rows of this throwaway database, so admission still runs in full.
    planSetting: sql`update plans set polls_per_minute = 100000000, requests_per_minute = 100000000 where name = 'scale'`,
    youtube: createYoutubeAdapter({ origin: spec.youtubeOrigin }),
  });
}

await serveTarget(buildTarget);
