import { ApiError } from "../errors.ts";
import type { PlanName } from "../services/accounts/index.ts";
import type { Platform } from "../services/process-services.ts";

/** An operator command: what `verbatim <command>` asks, directly or through the running service. */
export type AdminCommand =
  | { name: "accounts.create"; plan: PlanName; credits?: number | null; accountName?: string }
  | { name: "accounts.list" }
  | { name: "accounts.show"; accountId: string }
  | { name: "accounts.set-plan"; accountId: string; plan: PlanName }
  | { name: "accounts.rotate-webhook-secret"; accountId: string }
  | { name: "credits.grant"; accountId: string; credits: number; reason?: string }
  | { name: "keys.create"; accountId: string }
  | { name: "keys.list"; accountId: string }
  | { name: "keys.revoke"; keyId: string }
  | { name: "keys.rotate"; keyId: string; graceSeconds: number }
  | { name: "keys.set-limit"; keyId: string; requestsPerMinute: number | null }
  | { name: "webhooks.list"; accountId: string; limit: number }
  | { name: "dashboard.link"; accountId: string; baseUrl: string }
  | { name: "dashboard.sessions"; accountId: string }
  | { name: "dashboard.end-session"; sessionId: string };

/** Runs an operator command against the platform and answers its result as plain data. */
export async function runAdminCommand(platform: Platform, command: AdminCommand): Promise<unknown> {
  const { accounts, credits } = platform;
  switch (command.name) {
    case "accounts.create":
      return accounts.create({
        plan: command.plan,
        ...(command.credits === undefined ? {} : { credits: command.credits }),
        ...(command.accountName === undefined ? {} : { name: command.accountName }),
      });
    case "accounts.list":
      return accounts.list();
    case "accounts.show":
      return {
        ...(await accounts.show(command.accountId)),
        webhook_secret: await accounts.webhookSecret(command.accountId),
        keys: await accounts.keys.all(command.accountId),
      };
    case "accounts.set-plan":
      return accounts.setPlan(command.accountId, command.plan);
    case "accounts.rotate-webhook-secret":
      return { id: command.accountId, webhook_secret: await accounts.rotateWebhookSecret(command.accountId) };
    case "credits.grant":
      return {
        id: command.accountId,
        credits: await credits.grant(command.accountId, command.credits, command.reason ?? "operator grant"),
      };
    case "keys.create":
      return accounts.keys.create(command.accountId);
    case "keys.list":
      return accounts.keys.all(command.accountId);
    case "keys.revoke":
      return accounts.keys.revoke(command.keyId);
    case "keys.rotate":
      return accounts.keys.rotate(command.keyId, command.graceSeconds);
    case "keys.set-limit":
      return accounts.keys.setLimit(command.keyId, command.requestsPerMinute);
    case "webhooks.list": {
      await accounts.show(command.accountId);
      return (await platform.webhookLog.list(command.accountId, { limit: command.limit })).deliveries;
    }
    case "dashboard.link": {
      await accounts.show(command.accountId);
      const { token, expiresAt } = await platform.dashboard.createSignInLink(command.accountId);
      return {
        account_id: command.accountId,
        link: `${command.baseUrl}/dashboard/sign-in#token=${token}`,
        expires_at: expiresAt.toISOString(),
      };
    }
    case "dashboard.sessions": {
      await accounts.show(command.accountId);
      return (await platform.dashboard.list(command.accountId)).map((session) => ({
        id: session.id,
        signed_in_with: session.signedInWith,
        api_key_id: session.apiKey?.id ?? null,
        created_at: session.createdAt.toISOString(),
        last_used_at: session.lastUsedAt?.toISOString() ?? null,
        expires_at: session.expiresAt.toISOString(),
      }));
    }
    case "dashboard.end-session": {
      if (!(await platform.dashboard.end(command.sessionId))) {
        throw new ApiError("not_found", `No open dashboard session ${command.sessionId}.`);
      }
      return { id: command.sessionId, ended: true };
    }
  }
}
