/**
 * DNS-rebinding guard: the Host header must name this machine's loopback, or a host the operator
 * listed in `bridge.allowed_hosts` (with or without a port). Checked before anything else.
 *
 * The header must first be a strict `host[:port]`: a host name (dot-separated labels of letters,
 * digits, `-` and `_`, none starting or ending with `-`), an IPv4 address, or an IPv6 address in
 * brackets, then at most `:` and a port (1 to 5 digits, at most 65535). Anything else (userinfo
 * such as `localhost:1@evil.com`, a path, a query, spaces, a second colon) is refused, so what
 * passes can be put in a URL as it is (the agent card's `http://<Host>/a2a`).
 */
import { isIPv6 } from "node:net"

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"])

const LABEL = "[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?"
const NAME = new RegExp(`^${LABEL}(?:\\.${LABEL})*$`)
const HOST = /^(\[[0-9a-f:.]+\]|[a-z0-9_.-]+)(?::([0-9]{1,5}))?$/

export interface HostPort {
  /** Lower case; an IPv6 address keeps its brackets. */
  readonly name: string
  readonly port: number | undefined
}

/** A Host header value as name and port, or `undefined` when it is not a strict `host[:port]`. */
export const parseHost = (host: string): HostPort | undefined => {
  const m = HOST.exec(host.toLowerCase())
  if (m === null) return undefined
  const name = m[1]!
  if (name.startsWith("[") ? !isIPv6(name.slice(1, -1)) : !NAME.test(name)) return undefined
  const port = m[2] === undefined ? undefined : Number(m[2])
  if (port !== undefined && port > 65535) return undefined
  return { name, port }
}

export const hostAllowed = (host: string | undefined, allowed: ReadonlyArray<string>): boolean => {
  if (host === undefined) return false
  const parsed = parseHost(host)
  if (parsed === undefined) return false
  const { name, port } = parsed
  if (LOOPBACK.has(name) || name.endsWith(".localhost")) return true
  const whole = port === undefined ? name : `${name}:${port}`
  return allowed.some((a) => {
    const entry = a.trim().toLowerCase()
    return entry === whole || entry === name
  })
}
