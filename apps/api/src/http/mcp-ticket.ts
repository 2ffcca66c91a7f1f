/**
 * The header on the API request a tool call of `POST /mcp` makes, naming the POST's ticket
 * (`ToolCallAdmissions`). Only this server sends it, to itself; no client ever sees a ticket.
 */
export const mcpTicketHeader = "X-Verbatim-Mcp-Ticket";
