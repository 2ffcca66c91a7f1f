import type { Verbatim } from "@verbatim/sdk";

/** Checks that the server answers and the key is valid, and prints the account's balance and allowance. */
export async function quickstart(verbatim: Verbatim, print: (line: string) => void): Promise<void> {
  const health = await verbatim.health();
  print(`${health.data.service} ${health.data.version} is up at ${verbatim.baseUrl}`);

  const { data: account } = await verbatim.me();
  print(`account ${account.user_id} on the ${account.plan} plan`);
  print(`credits: ${account.credits ?? "unlimited"}`);
  print(`requests left this minute: ${account.rate_limit.remaining} of ${account.rate_limit.limit}`);
}
