import { contractProperties } from "../contract-schemas.ts";
import { inputSchemaOf, outputSchemaOf, readOnlyOpenWorld, type Tool } from "./tool.ts";

export const getCredits: Tool = {
  name: "get_credits",
  operationId: "me",
  title: "Check the credit balance",
  description:
    "The account's remaining credits, its plan and its request allowance. Free: it counts on the polling allowance, not the request allowance.",
  annotations: { title: "Check the credit balance", ...readOnlyOpenWorld, idempotentHint: true },
  inputSchema: inputSchemaOf({}, []),
  outputSchema: outputSchemaOf(contractProperties("Me", ["credits", "plan", "rate_limit"]), [
    "credits",
    "plan",
    "rate_limit",
  ]),
  async run(client) {
    const { data } = await client.me();
    const credits = data.credits === null ? "Unlimited credits" : `${data.credits} credits left`;
    return {
      content: [
        {
          type: "text",
          text: `${credits} on the ${data.plan} plan; ${data.rate_limit.remaining} of ${data.rate_limit.limit} requests left this minute.`,
        },
      ],
      structuredContent: { credits: data.credits, plan: data.plan, rate_limit: data.rate_limit },
    };
  },
};
