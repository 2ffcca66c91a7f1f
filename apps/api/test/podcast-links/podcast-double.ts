import type { PlatformDouble } from "@verbatim/testkit/platform-double";
import { caCertificatesFrom } from "../../src/adapters/net/ca-certificates.ts";

/** The podcast folders of the platform double: Apple's directory, Spotify, and the feeds they lead to. */
export const podcastDoubleFolders = ["apple-podcasts", "spotify", "podcast-feeds"];

/** How a server reaches the podcast double: through it as its proxy, trusting its CA, under the public-address rule. */
export function podcastDoubleEgress(double: PlatformDouble) {
  const ca = caCertificatesFrom({ VERBATIM_CA_FILE: double.caFile });
  return { allowPrivateTargets: false, proxyUrls: [double.proxyUrl], ...(ca ? { ca } : {}) };
}
