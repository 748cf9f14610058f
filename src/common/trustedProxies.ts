/**
 * Which address a request comes from when the bridge runs behind a reverse proxy. The socket's peer
 * is the answer, unless that peer is one of `bridge.trusted_proxies`: then `X-Forwarded-For` is read
 * from right to left (each proxy appends the address it was reached from), skipping the trusted
 * proxies, and the first address that is not one of them is the client. Anything left of it was
 * written by that client and is never believed. With no trusted proxies the header is ignored.
 */
import { BlockList, isIP } from "node:net"

/** `127.0.0.1` → itself; `::FFFF:10.0.0.7` → `10.0.0.7`; `[::1]:80` and `10.0.0.1:5000` lose the port. */
export const plainAddress = (raw: string): string | null => {
  let s = raw.trim()
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(s)
  if (bracketed !== null) s = bracketed[1]!
  else if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(s)) s = s.slice(0, s.lastIndexOf(":"))
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(s)
  if (mapped !== null) s = mapped[1]!
  return isIP(s) === 0 ? null : s.toLowerCase()
}

const family = (address: string): "ipv4" | "ipv6" => (isIP(address) === 4 ? "ipv4" : "ipv6")

/** Why a `bridge.trusted_proxies` entry is not an address or a CIDR range, or null when it is one. */
export const proxyEntryProblem = (entry: string): string | null => {
  const [address = "", prefix, ...rest] = entry.trim().split("/")
  const ip = plainAddress(address)
  if (ip === null || rest.length > 0) return `${JSON.stringify(entry)} is not an IP address or CIDR range (such as 10.0.0.0/8 or ::1)`
  if (prefix === undefined) return null
  const max = family(ip) === "ipv4" ? 32 : 128
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= max ? null : `${JSON.stringify(entry)} has a prefix length outside 0–${max}`
}

export interface TrustedProxies {
  /** True when `address` (already plain) is one of the trusted proxies. */
  readonly trusts: (address: string) => boolean
  readonly none: boolean
}

/** Builds the set from checked entries (see `proxyEntryProblem`); a bad entry is skipped. */
export const trustedProxies = (entries: ReadonlyArray<string>): TrustedProxies => {
  const list = new BlockList()
  let count = 0
  for (const entry of entries) {
    if (proxyEntryProblem(entry) !== null) continue
    const [address = "", prefix] = entry.trim().split("/")
    const ip = plainAddress(address)!
    if (prefix === undefined) list.addAddress(ip, family(ip))
    else list.addSubnet(ip, Number(prefix), family(ip))
    count += 1
  }
  return { trusts: (address) => count > 0 && list.check(address, family(address)), none: count === 0 }
}

/** At most this many forwarded hops are read; a longer header is someone's padding. */
const MAX_HOPS = 32

/**
 * The client address of a request whose socket peer is `peer` and whose `X-Forwarded-For` header
 * (every value, comma-joined as node gives it) is `forwardedFor`. Null when there is no peer.
 */
export const clientAddress = (peer: string | undefined, forwardedFor: string | undefined, trusted: TrustedProxies): string | null => {
  const from = peer === undefined ? null : plainAddress(peer)
  if (from === null || trusted.none || !trusted.trusts(from) || forwardedFor === undefined) return from
  const hops = forwardedFor.split(",").slice(-MAX_HOPS)
  let client = from
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = plainAddress(hops[i]!)
    // A hop that is no address was not written by a proxy we trust: stop at the last one we do.
    if (hop === null) return client
    client = hop
    if (!trusted.trusts(hop)) return hop
  }
  return client
}
