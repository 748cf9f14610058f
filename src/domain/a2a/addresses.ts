/**
 * What kind of address a webhook would reach (docs/REFERENCE.md, "Push notifications"): pure, by
 * hand (the domain imports no `node:net`), so the property tests can drive it. An address is
 * parsed to its bytes, then classified; an IPv6 form that carries an IPv4 address inside
 * (`::ffff:a.b.c.d`, `::a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) is classified by that
 * IPv4 address, so a private address cannot pass dressed as IPv6.
 */

export type AddressKind = "public" | "loopback" | "private" | "link_local" | "metadata" | "unspecified" | "multicast" | "reserved"

export interface Address {
  readonly family: 4 | 6
  /** 4 or 16 bytes, network order. */
  readonly bytes: ReadonlyArray<number>
}

const V4_PART = /^(0|[1-9][0-9]{0,2})$/

/** Dotted-quad IPv4 only (no octal, hex or short forms: a URL parser has already normalised them). */
export const parseIpv4 = (text: string): Address | undefined => {
  const parts = text.split(".")
  if (parts.length !== 4) return undefined
  const bytes: Array<number> = []
  for (const p of parts) {
    if (!V4_PART.test(p)) return undefined
    const n = Number(p)
    if (n > 255) return undefined
    bytes.push(n)
  }
  return { family: 4, bytes }
}

/** IPv6 text (with `::` and a trailing dotted quad); brackets and zone ids are refused. */
export const parseIpv6 = (text: string): Address | undefined => {
  if (text.length === 0 || text.length > 45 || !/^[0-9a-fA-F:.]+$/.test(text)) return undefined
  const halves = text.split("::")
  if (halves.length > 2) return undefined
  const groupsOf = (s: string): Array<number> | undefined => {
    if (s.length === 0) return []
    const out: Array<number> = []
    const pieces = s.split(":")
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i]!
      if (i === pieces.length - 1 && piece.includes(".")) {
        const v4 = parseIpv4(piece)
        if (v4 === undefined) return undefined
        out.push((v4.bytes[0]! << 8) | v4.bytes[1]!, (v4.bytes[2]! << 8) | v4.bytes[3]!)
      } else {
        if (!/^[0-9a-fA-F]{1,4}$/.test(piece)) return undefined
        out.push(parseInt(piece, 16))
      }
    }
    return out
  }
  const head = groupsOf(halves[0]!)
  const tail = halves.length === 2 ? groupsOf(halves[1]!) : []
  if (head === undefined || tail === undefined) return undefined
  const missing = 8 - head.length - tail.length
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined
  const groups = [...head, ...Array<number>(halves.length === 2 ? missing : 0).fill(0), ...tail]
  return { family: 6, bytes: groups.flatMap((g) => [g >> 8, g & 0xff]) }
}

/** An address literal as a URL's hostname gives it (`[::1]` with brackets, or dotted IPv4). */
export const parseAddress = (text: string): Address | undefined => {
  const bare = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text
  return parseIpv4(bare) ?? parseIpv6(bare)
}

export const formatAddress = (a: Address): string => {
  if (a.family === 4) return a.bytes.join(".")
  const groups: Array<string> = []
  for (let i = 0; i < 16; i += 2) groups.push(((a.bytes[i]! << 8) | a.bytes[i + 1]!).toString(16))
  return groups.join(":")
}

/** Whether the first `bits` bits of `a` equal those of `prefix` (same family). */
export const inPrefix = (a: Address, prefix: Address, bits: number): boolean => {
  if (a.family !== prefix.family) return false
  for (let i = 0; i < bits; i++) {
    const byte = i >> 3
    const mask = 0x80 >> (i & 7)
    if ((a.bytes[byte]! & mask) !== (prefix.bytes[byte]! & mask)) return false
  }
  return true
}

const v4 = (a: number, b: number, c: number, d: number): Address => ({ family: 4, bytes: [a, b, c, d] })
const net = (text: string): Address => parseAddress(text)!

const classifyV4 = (a: Address): AddressKind => {
  const [b0, b1] = a.bytes as [number, number, number, number]
  if (a.bytes.every((b, i) => b === [169, 254, 169, 254][i])) return "metadata"
  if (b0 === 0) return "unspecified"
  if (b0 === 127) return "loopback"
  if (b0 === 10 || (b0 === 172 && b1 >= 16 && b1 <= 31) || (b0 === 192 && b1 === 168)) return "private"
  // Carrier-grade NAT (100.64/10) and the IETF's 192.0.0/24 reach no public host either.
  if ((b0 === 100 && b1 >= 64 && b1 <= 127) || inPrefix(a, v4(192, 0, 0, 0), 24) || (b0 === 198 && (b1 === 18 || b1 === 19))) return "private"
  if (b0 === 169 && b1 === 254) return "link_local"
  if (b0 >= 224 && b0 <= 239) return "multicast"
  if (b0 >= 240) return "reserved"
  return "public"
}

/** The IPv4 address an IPv6 form carries, if it is one of the forms that do. */
export const embeddedIpv4 = (a: Address): Address | undefined => {
  if (a.family !== 6) return undefined
  const last4 = v4(a.bytes[12]!, a.bytes[13]!, a.bytes[14]!, a.bytes[15]!)
  const zeros = (from: number, to: number) => a.bytes.slice(from, to).every((b) => b === 0)
  if (zeros(0, 10) && a.bytes[10] === 0xff && a.bytes[11] === 0xff) return last4 // ::ffff:a.b.c.d (mapped)
  if (zeros(0, 8) && a.bytes[8] === 0xff && a.bytes[9] === 0xff && zeros(10, 12)) return last4 // ::ffff:0:a.b.c.d (translated)
  if (zeros(0, 12) && !zeros(12, 16) && !(zeros(12, 15) && a.bytes[15] === 1)) return last4 // ::a.b.c.d (compatible)
  if (inPrefix(a, net("64:ff9b::"), 96) || inPrefix(a, net("64:ff9b:1::"), 48)) return last4 // NAT64
  if (a.bytes[0] === 0x20 && a.bytes[1] === 0x02) return v4(a.bytes[2]!, a.bytes[3]!, a.bytes[4]!, a.bytes[5]!) // 6to4
  return undefined
}

const EC2_METADATA_V6 = net("fd00:ec2::254")

export const classify = (a: Address): AddressKind => {
  if (a.family === 4) return classifyV4(a)
  const inner = embeddedIpv4(a)
  if (inner !== undefined) {
    const kind = classifyV4(inner)
    // An IPv4 form wrapped in IPv6 is never loopback-by-exception: a test's 127.0.0.1 is named as such.
    return kind === "loopback" ? "private" : kind
  }
  if (a.bytes.every((b) => b === 0)) return "unspecified"
  if (a.bytes.slice(0, 15).every((b) => b === 0) && a.bytes[15] === 1) return "loopback"
  if (inPrefix(a, EC2_METADATA_V6, 128)) return "metadata"
  if (inPrefix(a, net("fc00::"), 7) || inPrefix(a, net("fec0::"), 10)) return "private"
  if (inPrefix(a, net("fe80::"), 10)) return "link_local"
  if (a.bytes[0] === 0xff) return "multicast"
  // Documentation (2001:db8::/32), discard (100::/64) and the other IETF-reserved space.
  if (inPrefix(a, net("2001:db8::"), 32) || inPrefix(a, net("100::"), 64) || inPrefix(a, net("2001::"), 23)) return "reserved"
  // Global unicast is 2000::/3; anything else is not assigned to a public host.
  return inPrefix(a, net("2000::"), 3) ? "public" : "reserved"
}

/** Host names that are metadata services whatever they resolve to. */
export const METADATA_HOSTS: ReadonlyArray<string> = ["metadata.google.internal", "metadata", "metadata.goog", "instance-data", "instance-data.ec2.internal"]

export const isMetadataHost = (hostname: string): boolean => {
  const h = hostname.toLowerCase().replace(/\.$/, "")
  return METADATA_HOSTS.includes(h)
}
