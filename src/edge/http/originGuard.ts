/**
 * Browser guard of the MCP endpoints: a request that carries an `Origin` header comes from a web
 * page, which may be any site the operator's browser has open (a page can POST to loopback). It is
 * served only when that origin is the daemon's own (scheme and the request's Host, which the host
 * guard has already checked: a page the daemon itself serves, or a client that names the server it
 * talks to, as the conformance suite does) or is listed in `bridge.allowed_origins` (none by
 * default); any other, `Origin: null` included, is refused with 403. A DNS-rebinding page has its
 * own name in both Host and Origin, and the host guard refuses that Host first. Requests without an `Origin` (CLI agents, SDK
 * clients) are not browser requests and pass.
 */

/** `scheme://host[:port]` in lower case, without a trailing slash or a default port. */
export const normalizeOrigin = (origin: string): string | undefined => {
  const o = origin.trim()
  if (o === "" || o === "null") return undefined
  try {
    const u = new URL(o)
    if (u.protocol !== "http:" && u.protocol !== "https:") return undefined
    return `${u.protocol}//${u.host}`.toLowerCase()
  } catch {
    return undefined
  }
}

export const originAllowed = (origin: string | undefined, allowed: ReadonlyArray<string>, host?: string): boolean => {
  if (origin === undefined) return true
  const o = normalizeOrigin(origin)
  if (o === undefined) return false
  if (host !== undefined && host !== "" && (o === normalizeOrigin(`http://${host}`) || o === normalizeOrigin(`https://${host}`))) return true
  return allowed.some((a) => normalizeOrigin(a) === o)
}
