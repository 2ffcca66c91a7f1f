import { describe, expect, it } from "vitest";
import { canonicalHost, literalHostRefusal, publicAddressRule } from "./address-rule.ts";

describe("publicAddressRule", () => {
  it.each([
    ["8.8.8.8"],
    ["93.184.215.14"],
    ["1.1.1.1"],
    ["100.63.255.255"],
    ["100.128.0.0"],
    ["172.15.255.255"],
    ["172.32.0.0"],
    ["192.167.255.255"],
    ["223.255.255.255"],
    ["2606:4700:4700::1111"],
    ["2a00:1450:4001:82b::200e"],
    ["::ffff:8.8.8.8"],
    ["64:ff9b::808:808"],
    ["2002:808:808::1"],
  ])("admits the public unicast address %s", (address) => {
    expect(publicAddressRule(address)).toBeNull();
  });

  it.each([
    ["127.0.0.1", "a loopback address"],
    ["127.255.255.254", "a loopback address"],
    ["10.0.0.1", "a private address"],
    ["172.16.0.1", "a private address"],
    ["172.31.255.255", "a private address"],
    ["192.168.1.1", "a private address"],
    ["169.254.169.254", "a link-local address"],
    ["100.64.0.1", "a carrier-grade NAT address"],
    ["100.127.255.255", "a carrier-grade NAT address"],
    ["0.0.0.0", "an unspecified address"],
    ["0.1.2.3", "an unspecified address"],
    ["255.255.255.255", "a broadcast address"],
    ["224.0.0.1", "a multicast address"],
    ["239.255.255.250", "a multicast address"],
    ["192.0.2.10", "a reserved address"],
    ["198.18.0.1", "a reserved address"],
    ["203.0.113.5", "a reserved address"],
    ["240.0.0.1", "a reserved address"],
    ["::1", "a loopback address"],
    ["[::1]", "a loopback address"],
    ["::", "an unspecified address"],
    ["fe80::1", "a link-local address"],
    ["fe80::1%eth0", "a link-local address"],
    ["fc00::1", "a unique local address"],
    ["fd12:3456:789a::1", "a unique local address"],
    ["fec0::1", "a site-local address"],
    ["ff02::1", "a multicast address"],
    ["2001:db8::1", "a reserved address"],
    ["::7f00:1", "a deprecated IPv4-compatible address"],
    ["64:ff9b:1::a00:1", "a local-use NAT64 address"],
    ["2001::1", "a Teredo tunnel address"],
  ])("refuses %s as %s", (address, description) => {
    expect(publicAddressRule(address)).toBe(description);
  });

  it.each([
    ["::ffff:127.0.0.1", "a loopback address"],
    ["::ffff:7f00:1", "a loopback address"],
    ["::ffff:10.1.2.3", "a private address"],
    ["::ffff:169.254.169.254", "a link-local address"],
    ["64:ff9b::a9fe:a9fe", "a link-local address"],
    ["2002:c0a8:101::1", "a private address"],
  ])("judges %s by the IPv4 address it carries", (address, description) => {
    expect(publicAddressRule(address)).toMatch(new RegExp(`^${description} \\(inside `));
  });

  it("refuses what is not an IP address", () => {
    expect(publicAddressRule("localhost")).toBe("not an IP address");
  });
});

describe("literalHostRefusal", () => {
  it.each([
    ["localhost", "this machine (localhost)"],
    ["api.localhost", "this machine (localhost)"],
    ["127.0.0.1", "a loopback address"],
    ["[::1]", "a loopback address"],
    ["169.254.169.254", "a link-local address"],
  ])("refuses %s before any lookup", (host, refusal) => {
    expect(literalHostRefusal(host)).toBe(refusal);
  });

  it.each(["hooks.example.com", "93.184.216.34", "[2606:4700::1111]"])("admits %s", (host) => {
    expect(literalHostRefusal(host)).toBeNull();
  });
});

describe("canonicalHost", () => {
  it.each([
    ["2130706433", "127.0.0.1"],
    ["0x7f.1", "127.0.0.1"],
    ["0177.0.0.1", "127.0.0.1"],
    ["127.000.000.001", "127.0.0.1"],
    ["127.0.0.1.", "127.0.0.1"],
    ["%31%32%37.0.0.1", "127.0.0.1"],
    ["0127.0.0.1", "87.0.0.1"],
    ["::1", "[::1]"],
    ["[::FFFF:127.0.0.1]", "[::ffff:7f00:1]"],
    ["Media.Example.", "media.example."],
    ["bücher.example", "xn--bcher-kva.example"],
  ])("reads %s as %s, as a resolver does", (host, canonical) => {
    expect(canonicalHost(host)).toBe(canonical);
  });

  it.each([
    ["user@media.example"],
    ["media.example:443"],
    ["media.example/path"],
    ["media.example?query"],
    ["media.example#part"],
    ["media example"],
    ["[::1%25eth0]"],
    ["1.2.3.4.5"],
    ["media.example!"],
    [""],
  ])("answers null for %j, which is no host on its own", (host) => {
    expect(canonicalHost(host)).toBeNull();
  });
});

describe("literalHostRefusal, for a host in any form a resolver reads", () => {
  it.each([
    ["2130706433", "a loopback address, 127.0.0.1"],
    ["0xa9fea9fe", "a link-local address, 169.254.169.254"],
    ["10.1", "a private address, 10.0.0.1"],
    ["LOCALHOST.", "this machine (localhost)"],
    ["user@media.example", "not a host name"],
  ])("refuses %s as %s", (host, refusal) => {
    expect(literalHostRefusal(host)).toBe(refusal);
  });

  it("admits a public address in inet_aton form, which it is sent on as four decimals", () => {
    expect([literalHostRefusal("0x5d.0270.0xd7.14"), canonicalHost("0x5d.0270.0xd7.14")]).toEqual([
      null,
      "93.184.215.14",
    ]);
  });
});
