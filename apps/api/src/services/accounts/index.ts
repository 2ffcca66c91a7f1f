export type { ApiKeyView } from "./account-keys.ts";
export { Accounts } from "./accounts.ts";
export { apiKeyPattern, hashApiKey } from "./api-keys.ts";
export {
  type Allowance,
  type AllowanceState,
  type Authentication,
  Authenticator,
  type FurtherAdmission,
} from "./authenticator.ts";
export { type ChargeRequest, type ChargeSettlement, Credits, type UsageBlock, usageBlock } from "./credits.ts";
export { mayEnd, type NewSession, type SignInMethod, sessionSecretPattern } from "./dashboard-session-terms.ts";
export { DashboardSessions } from "./dashboard-sessions.ts";
export { defaultInFlightSeconds, Idempotency, type IdempotentAnswer, type StoredResponse } from "./idempotency.ts";
export { MonthlyRefills } from "./monthly-refills.ts";
export { isPlanName, type PlanName, planNames, plans } from "./plans.ts";
export { pricing } from "./pricing.ts";
export { AccountSlots, HeldSlot, type SlotLease } from "./slots.ts";
export { ToolCallAdmissions } from "./tool-call-admissions.ts";
export { UsageReports } from "./usage.ts";
