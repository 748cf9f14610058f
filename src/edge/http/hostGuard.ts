/**
 * DNS-rebinding guard: the Host header must name this machine's loopback, or a host the operator
 * listed in `bridge.allowed_hosts` (with or without a port). Checked before anything else.
 */
const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]", "::1"])

/** The hostname of a Host header value ("example.org:8765" → "example.org", "[::1]:80" → "[::1]"). */
export const hostname = (host: string): string => {
  const h = host.trim().toLowerCase()
  if (h.startsWith("[")) {
    const end = h.indexOf("]")
    return end === -1 ? h : h.slice(0, end + 1)
  }
  const colon = h.lastIndexOf(":")
  return colon === -1 ? h : h.slice(0, colon)
}

export const hostAllowed = (host: string | undefined, allowed: ReadonlyArray<string>): boolean => {
  if (host === undefined || host.length === 0) return false
  const h = host.trim().toLowerCase()
  const name = hostname(h)
  if (LOOPBACK.has(name) || name.endsWith(".localhost")) return true
  return allowed.some((a) => {
    const entry = a.trim().toLowerCase()
    return entry === h || entry === name
  })
}
