import { BlockList, isIP } from "node:net";

/**
 * Addresses a fetch of chat media must not reach unless `media.allowPrivateNetworks` is true:
 * the machine itself, its networks, and the cloud metadata service (169.254.169.254). Node's
 * BlockList also matches IPv4-mapped IPv6 forms (`::ffff:127.0.0.1`) against the IPv4 ranges.
 */
const RANGES: { kind: string; subnets: [network: string, prefix: number, family: "ipv4" | "ipv6"][] }[] = [
  {
    kind: "an unspecified address",
    subnets: [
      ["0.0.0.0", 8, "ipv4"],
      ["::", 128, "ipv6"],
    ],
  },
  {
    kind: "a loopback address",
    subnets: [
      ["127.0.0.0", 8, "ipv4"],
      ["::1", 128, "ipv6"],
    ],
  },
  {
    kind: "a private address",
    subnets: [
      ["10.0.0.0", 8, "ipv4"],
      ["172.16.0.0", 12, "ipv4"],
      ["192.168.0.0", 16, "ipv4"],
      ["fc00::", 7, "ipv6"],
      ["fec0::", 10, "ipv6"],
    ],
  },
  { kind: "a shared (CGNAT) address", subnets: [["100.64.0.0", 10, "ipv4"]] },
  {
    kind: "a link-local address",
    subnets: [
      ["169.254.0.0", 16, "ipv4"],
      ["fe80::", 10, "ipv6"],
    ],
  },
  {
    kind: "a multicast address",
    subnets: [
      ["224.0.0.0", 4, "ipv4"],
      ["ff00::", 8, "ipv6"],
    ],
  },
  {
    // Broadcast and other special-purpose ranges that no picture server lives in.
    kind: "a reserved address",
    subnets: [
      ["240.0.0.0", 4, "ipv4"],
      ["192.0.0.0", 24, "ipv4"],
      ["198.18.0.0", 15, "ipv4"],
      ["::", 96, "ipv6"],
    ],
  },
];

const LISTS = RANGES.map(({ kind, subnets }) => {
  const list = new BlockList();
  for (const [network, prefix, family] of subnets) list.addSubnet(network, prefix, family);
  return { kind, list };
});

/** What kind of forbidden address `address` (a literal IP) is, e.g. "a private address"; undefined when public. */
export function forbiddenAddressKind(address: string): string | undefined {
  const family = isIP(address) === 6 ? "ipv6" : "ipv4";
  return LISTS.find(({ list }) => list.check(address, family))?.kind;
}
