// The child process of `bench/youtube.ts` for the floors of `POST /api/v2/transcripts/video`: a bare
// Express route answering the API's body, alone or charging on PostgreSQL, through
// bench/target-child.ts. The API itself runs compiled (bench/compiled-api.ts).
import express from "express";
import type { TargetName } from "./protocol.ts";
import { bareTarget, durableChargeTarget, serveTarget, type Target } from "./target-child.ts";

/** How this child builds its target; passed as JSON in `argv[2]`. */
export interface YoutubeTargetSpec {
  /** The bare route, the bare route charging on PostgreSQL (`durable`), or (started compiled, not here) the transcript operation on one of the two engines. */
  name: TargetName;
  /** The fresh database of the `postgres` target, which the `durable` target charges in too. */
  databaseUrl?: string;
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
  throw new Error(`bench/youtube-target-server.ts serves the floors, not ${spec.name}: the API runs compiled`);
}

await serveTarget(buildTarget);
