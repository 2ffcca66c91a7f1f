import { randomBytes } from "node:crypto";
import type { Allowance, Authentication } from "../services/accounts/index.ts";

/**
 * The header on the API request a tool call of `POST /mcp` makes, naming the POST's ticket: the
 * call was counted when the POST was admitted, so its request takes that admission instead of
 * counting again. Only this server sends it, to itself; no client ever sees a ticket.
 */
export const mcpTicketHeader = "X-Verbatim-Mcp-Ticket";

interface Ticket {
  secretHash: string;
  admissions: Array<{ allowance: Allowance; auth: Authentication }>;
}

// In this process only: a tool call's request goes to the address its POST reached. A request
// that lands elsewhere finds no ticket and is counted, so a call may count twice, never zero times.
const tickets = new Map<string, Ticket>();

/** A POST's admitted tool calls, kept under a new ticket until `release` (when the POST's answer is sent). */
export function holdToolCallAdmissions(
  secretHash: string,
  admissions: Ticket["admissions"],
): { ticket: string; release(): void } {
  const ticket = randomBytes(32).toString("base64url");
  tickets.set(ticket, { secretHash, admissions: [...admissions] });
  return { ticket, release: () => tickets.delete(ticket) };
}

/**
 * Takes for good one admission of `allowance` held under `ticket` for the same key: the request
 * is then not counted again. `undefined` for no ticket, another key's, or none of that allowance left.
 */
export function takeToolCallAdmission(
  ticket: string | undefined,
  secretHash: string,
  allowance: Allowance,
): Authentication | undefined {
  if (ticket === undefined) return undefined;
  const held = tickets.get(ticket);
  if (held?.secretHash !== secretHash) return undefined;
  const index = held.admissions.findIndex((admission) => admission.allowance === allowance);
  if (index < 0) return undefined;
  const [taken] = held.admissions.splice(index, 1);
  return taken?.auth;
}
