// The child process of bench/run.ts: serves `GET /api/v2/me` (the real API) or a bare Express route
// answering the same body, through bench/target-child.ts.
import { benchAccounts, unlimitedAllowances } from "./bench-accounts.ts";
import type { TargetSpec } from "./protocol.ts";
import { apiTarget, bareTarget, serveTarget, type Target } from "./target-child.ts";

async function buildTarget(spec: TargetSpec): Promise<Target> {
  if (spec.name === "bare") return bareTarget(spec.body, (app, answer) => app.get("/api/v2/me", answer));
  return apiTarget(spec, { accounts: benchAccounts, planSetting: unlimitedAllowances, countWindowRows: true });
}

await serveTarget(buildTarget);
