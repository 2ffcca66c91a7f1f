import { randomBytes } from "node:crypto";
import type { Allowance, Authentication } from "./authenticator.ts";

interface Ticket {
  secretHash: string;
  admissions: Array<{ allowance: Allowance; auth: Authentication }>;
}

/**
 * The admissions of a `POST /mcp`'s tool calls, held under a ticket while the POST runs: each call
 * was counted when the POST was admitted, so the API request it makes takes that admission instead
 * of counting again. Held in this process only: a tool call's request goes to the address its POST
 * reached, and a request that lands elsewhere finds no ticket and is counted, so a call may count
 * twice, never zero times.
 */
export class ToolCallAdmissions {
  private readonly tickets = new Map<string, Ticket>();

  /** A POST's admitted tool calls, kept under a new ticket until `release` (when the POST's answer is sent). */
  hold(secretHash: string, admissions: Ticket["admissions"]): { ticket: string; release(): void } {
    const ticket = randomBytes(32).toString("base64url");
    this.tickets.set(ticket, { secretHash, admissions: [...admissions] });
    return { ticket, release: () => this.tickets.delete(ticket) };
  }

  /**
   * Takes for good one admission of `allowance` held under `ticket` for the same key: the request
   * is then not counted again. `undefined` for no ticket, another key's, or none of that allowance left.
   */
  take(ticket: string | undefined, secretHash: string, allowance: Allowance): Authentication | undefined {
    if (ticket === undefined) return undefined;
    const held = this.tickets.get(ticket);
    if (held?.secretHash !== secretHash) return undefined;
    const index = held.admissions.findIndex((admission) => admission.allowance === allowance);
    if (index < 0) return undefined;
    const [taken] = held.admissions.splice(index, 1);
    return taken?.auth;
  }
}
