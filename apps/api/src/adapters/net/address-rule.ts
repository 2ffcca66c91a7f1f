import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

/** What an address is, in words, when the public-address rule refuses it; null when it is public unicast. */
export type AddressRule = (address: string) => string | null;

/** ipaddr.js range names, as the refusal message says them. */
const rangeDescriptions: Record<string, string> = {
  unspecified: "an unspecified address",
  broadcast: "a broadcast address",
  multicast: "a multicast address",
  linkLocal: "a link-local address",
  loopback: "a loopback address",
  carrierGradeNat: "a carrier-grade NAT address",
  private: "a private address",
  uniqueLocal: "a unique local address",
  deprecatedSiteLocal: "a site-local address",
  reserved: "a reserved address",
  as112: "an AS112 sink address",
  as112v6: "an AS112 sink address",
  amt: "an AMT relay address",
  discard: "a discard-only address",
  teredo: "a Teredo tunnel address",
  benchmarking: "a benchmarking address",
  deprecatedOrchid: "an ORCHID address",
  orchid2: "an ORCHID address",
  droneRemoteIdProtocolEntityTags: "a reserved address",
  segmentRouting: "a segment-routing address",
  rfc6052: "a local-use NAT64 address",
};

/**
 * The public-address rule: only public unicast addresses may be connected to. IPv6 forms that
 * carry an IPv4 address (mapped, NAT64, 6to4) are judged by the IPv4 address they carry, so
 * `::ffff:10.0.0.1` is as private as `10.0.0.1`.
 */
export const publicAddressRule: AddressRule = (address) => {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address.replace(/^\[|\]$/g, "").replace(/%.*$/, ""));
  } catch {
    return "not an IP address";
  }
  if (parsed.kind() === "ipv4") return refusalOfIpv4(parsed as ipaddr.IPv4);
  const ipv6 = parsed as ipaddr.IPv6;
  const embedded = embeddedIpv4(ipv6);
  if (embedded) {
    const refusal = refusalOfIpv4(embedded);
    return refusal === null ? null : `${refusal} (inside ${ipv6.range()} IPv6 ${ipv6.toString()})`;
  }
  const range = ipv6.range();
  if (range === "unicast") {
    // ::/96 outside :: and ::1 is the deprecated IPv4-compatible form (RFC 4291 2.5.5.1): never routed.
    return ipv6.parts.slice(0, 6).every((part) => part === 0) ? "a deprecated IPv4-compatible address" : null;
  }
  return rangeDescriptions[range] ?? `a ${range} address`;
};

function refusalOfIpv4(address: ipaddr.IPv4): string | null {
  const range = address.range();
  return range === "unicast" ? null : (rangeDescriptions[range] ?? `a ${range} address`);
}

/** The IPv4 address inside an IPv4-mapped, IPv4-translated, NAT64 or 6to4 IPv6 address. */
function embeddedIpv4(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  const parts = address.parts;
  const range = address.range();
  const fromWords = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  if (range === "ipv4Mapped" || range === "rfc6145") return fromWords(parts[6] ?? 0, parts[7] ?? 0);
  // Only the well-known NAT64 prefix 64:ff9b::/96 maps to public IPv4; 64:ff9b:1::/48 is local use.
  const wellKnownNat64 = parts[0] === 0x64 && parts[1] === 0xff9b && parts.slice(2, 6).every((part) => part === 0);
  if (wellKnownNat64) return fromWords(parts[6] ?? 0, parts[7] ?? 0);
  if (range === "6to4") return fromWords(parts[1] ?? 0, parts[2] ?? 0);
  return null;
}

/**
 * A host as resolvers read it, or null when the text is no host on its own (it carries a port,
 * a user, a path, or characters no host name has). WHATWG URL's host parser applies inet_aton's
 * numeric forms, so `2130706433`, `0x7f.1`, `0177.0.0.1` and `127.1` all come out as
 * `127.0.0.1`; it also decodes percent escapes, lowercases, writes IDNs in punycode and
 * compresses IPv6 (kept in brackets). An upstream proxy that resolves the text as given reads
 * it the same way, so the canonical form is both what is judged and what is sent on.
 */
export function canonicalHost(host: string): string | null {
  const bracketed = isIP(host) === 6 ? `[${host}]` : host;
  if (/:/.test(bracketed.replace(/^\[[^\]]*\]$/, ""))) return null;
  const url = URL.parse(`http://${bracketed}/`);
  if (!url || url.username || url.password || url.port || url.pathname !== "/" || url.search || url.hash) return null;
  return /^(?:\[[0-9a-f:.]+\]|[a-z0-9_.-]+)$/.test(url.hostname) ? url.hostname : null;
}

/**
 * Why a host is refused before any lookup: no host at all, a `localhost` name, or an IP
 * literal the rule refuses, in any form a resolver reads as one (`canonicalHost`); null for any
 * other name, which is judged by the addresses it resolves to.
 */
export function literalHostRefusal(hostname: string, rule: AddressRule = publicAddressRule): string | null {
  const canonical = canonicalHost(hostname);
  if (canonical === null) return "not a host name";
  // "localhost." is the same name as "localhost"; the trailing dot only says it is fully qualified.
  const name = canonical.replace(/\.$/, "");
  if (name === "localhost" || name.endsWith(".localhost")) return "this machine (localhost)";
  const address = canonical.replace(/^\[|\]$/g, "");
  const version = isIP(address);
  if (version === 0) return null;
  const refusal = rule(address);
  const written = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return refusal && version === 4 && written !== address ? `${refusal}, ${address}` : refusal;
}

/** Resolves a host name to all its addresses, as `dns.lookup` with `all: true` does. */
export type ResolveAll = (hostname: string) => Promise<LookupAddress[]>;

const resolveWithDns: ResolveAll = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))),
  );

/**
 * Why a host is refused: as `literalHostRefusal`, and for a name, the first address it resolves
 * to that the rule refuses. A name that does not resolve (yet) is not refused here: whoever
 * connects to it later checks it again.
 */
export async function hostRefusal(
  hostname: string,
  options: { rule?: AddressRule; resolveAll?: ResolveAll; timeoutMs?: number } = {},
): Promise<string | null> {
  const rule = options.rule ?? publicAddressRule;
  const literal = literalHostRefusal(hostname, rule);
  const name = canonicalHost(hostname);
  if (literal || name === null || isIP(name.replace(/^\[|\]$/g, "")) !== 0) return literal;
  const timeoutMs = options.timeoutMs ?? 2_000;
  let timer: NodeJS.Timeout | undefined;
  const addresses = await Promise.race([
    (options.resolveAll ?? resolveWithDns)(name),
    new Promise<LookupAddress[]>((resolve) => {
      timer = setTimeout(() => resolve([]), timeoutMs);
    }),
  ])
    .catch((): LookupAddress[] => [])
    .finally(() => clearTimeout(timer));
  for (const { address } of addresses) {
    const refusal = rule(address);
    if (refusal) return `${refusal} (${hostname} resolves to ${address})`;
  }
  return null;
}
