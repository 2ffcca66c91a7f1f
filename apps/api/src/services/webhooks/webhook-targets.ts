import { hostRefusal, type ResolveAll } from "../../adapters/net/address-rule.ts";

/** The address rule as a deployment applies it to webhook targets. */
export interface WebhookTargetRule {
  /** `VERBATIM_ALLOW_PRIVATE_TARGETS=1`: http and private addresses are admitted. */
  allowPrivateTargets: boolean;
  /** Resolves a target's host name; default `dns.lookup`. */
  resolveAll?: ResolveAll;
}

/**
 * Why the webhook deliverer would never reach `target`, in words that finish "the URL ...";
 * `null` when it would. Refused: an address the WHATWG parser (which delivery uses) rejects,
 * credentials (they would be sent to the receiver and written to the delivery log), a scheme
 * other than https, and a host that is, or resolves to, a private, loopback or link-local
 * address. Names are checked again at delivery time, so a name that later points inward is
 * refused there.
 */
export async function webhookTargetProblem(target: string, rule: WebhookTargetRule): Promise<string | null> {
  const url = URL.parse(target);
  if (!url) return "must be a URL a WHATWG parser accepts (host and port included)";
  if (url.username || url.password) return "must not carry a user name or password";
  if (url.protocol !== "https:" && !(rule.allowPrivateTargets && url.protocol === "http:")) {
    return "must be an https URL";
  }
  if (rule.allowPrivateTargets) return null;
  const refusedHost = await hostRefusal(url.hostname, rule.resolveAll ? { resolveAll: rule.resolveAll } : {});
  return refusedHost && `must not name ${refusedHost}`;
}
