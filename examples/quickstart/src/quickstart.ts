import { createClient } from "@verbatim/sdk";

export interface QuickstartOptions {
  baseUrl: string;
  apiKey: string;
  print: (line: string) => void;
}

/** Checks that the server answers and the key is valid, and prints the account's balance and allowance. */
export async function quickstart({ baseUrl, apiKey, print }: QuickstartOptions): Promise<void> {
  const verbatim = createClient({ baseUrl, apiKey });

  const health = await verbatim.GET("/health");
  if (!health.data) throw new Error(`${baseUrl} did not answer its health check (HTTP ${health.response.status})`);
  print(`${health.data.service} ${health.data.version} is up`);

  const me = await verbatim.GET("/me");
  if (me.error) throw new Error(`the key was refused: ${me.error.error.code} (${me.error.error.message})`);
  const { user_id, plan, credits, rate_limit } = me.data.data;
  print(`account ${user_id} on the ${plan} plan`);
  print(`credits: ${credits ?? "unlimited"}`);
  print(`requests left this minute: ${rate_limit.remaining} of ${rate_limit.limit}`);
}
