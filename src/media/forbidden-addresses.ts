import { BlockList, isIP } from "node:net";

/**
 * Addresses a fetch of chat media must not reach unless `media.allowPrivateNetworks` is true:
 * the machine itself, its networks, and the cloud metadata service (169.254.169.254). Node's
 * BlockList also matches IPv4-mapped IPv6 forms (`::ffff:127.0.0.1`) against the IPv4 ranges;
 * IPv4-compatible ones (`::127.0.0.1`) are all refused (`::/96`), and the IPv4 address inside a
 * NAT64 or 6to4 address is checked as an IPv4 address.
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
      // NAT64 for local use (RFC 8215): a network's own translator, whatever it embeds.
      ["64:ff9b:1::", 48, "ipv6"],
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

/**
 * IPv6 forms that carry an IPv4 address a translator or relay then connects to: the address
 * inside is held to the IPv4 rules. `offset`: the byte where those 4 bytes start.
 */
const EMBEDDING: { form: string; network: string; prefix: number; offset: number }[] = [
  { form: "NAT64", network: "64:ff9b::", prefix: 96, offset: 12 }, // RFC 6052
  { form: "6to4", network: "2002::", prefix: 16, offset: 2 }, // RFC 3056
];
const EMBEDDING_LISTS = EMBEDDING.map((embedding) => {
  const list = new BlockList();
  list.addSubnet(embedding.network, embedding.prefix, "ipv6");
  return { ...embedding, list };
});

/** What kind of forbidden address `address` (a literal IP) is, e.g. "a private address"; undefined when public. */
export function forbiddenAddressKind(address: string): string | undefined {
  const family = isIP(address) === 6 ? "ipv6" : "ipv4";
  const kind = LISTS.find(({ list }) => list.check(address, family))?.kind;
  if (kind !== undefined || family === "ipv4") return kind;
  const embedding = EMBEDDING_LISTS.find(({ list }) => list.check(address, "ipv6"));
  if (embedding === undefined) return undefined;
  const ipv4 = ipv6Bytes(address)
    .subarray(embedding.offset, embedding.offset + 4)
    .join(".");
  const inner = forbiddenAddressKind(ipv4);
  return inner && `${inner} (${ipv4}) in ${embedding.form} form`;
}

/** The 16 bytes of a valid IPv6 literal (`::` and a dotted IPv4 tail included). */
function ipv6Bytes(address: string): Buffer {
  const bytes = Buffer.alloc(16);
  const [head = "", tail] = address.split("::");
  const groupsOf = (part: string) =>
    part === ""
      ? []
      : part.split(":").flatMap((group) => {
          if (!group.includes(".")) return [Number.parseInt(group, 16)];
          const [a = 0, b = 0, c = 0, d = 0] = group.split(".").map(Number);
          return [(a << 8) | b, (c << 8) | d];
        });
  const front = groupsOf(head);
  const back = tail === undefined ? [] : groupsOf(tail);
  for (const [index, group] of front.entries()) bytes.writeUInt16BE(group, index * 2);
  for (const [index, group] of back.entries()) bytes.writeUInt16BE(group, 16 - (back.length - index) * 2);
  return bytes;
}
