import ipaddr from "ipaddr.js";

// Apart from egress.ts so that checking a URL when a webhook endpoint is saved does not bring the outbound HTTP client
// (its agents and pinned lookup) into the endpoint functions' bundles.

/**
 * True for an address an automation may call: public unicast only (ipaddr.js ranges, IPv4-mapped IPv6 read as IPv4).
 * Loopback, private, link-local, CGNAT, multicast, broadcast, reserved, NAT64, 6to4, Teredo and unparsable text are not.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address);
  if (parsed.range() !== "unicast") return false;
  // IPv4-compatible IPv6 (::/96, deprecated) embeds an IPv4 address; ipaddr.js counts it as unicast.
  return !(parsed instanceof ipaddr.IPv6 && parsed.parts.slice(0, 6).every((part) => part === 0));
}
