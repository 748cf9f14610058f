/**
 * `storage.url`: where the stores live when not in the SQLite file of `data_dir`. A PostgreSQL URL
 * (`postgres://user:password@host:5432/db`, or `postgresql://`); it may carry a password, so what is
 * said about it (a refusal, the start failure, the banner) names the server as `host:port/db` and
 * never quotes the URL.
 */

const PROTOCOLS = new Set(["postgres:", "postgresql:"])

const parse = (s: string): URL | undefined => {
  try {
    return new URL(s)
  } catch {
    return undefined
  }
}

/** Why `s` is no PostgreSQL URL the bridge can use, or undefined when it is one. Never quotes `s`. */
export const pgUrlProblem = (s: string): string | undefined => {
  const url = parse(s)
  if (url === undefined) return "a postgres:// or postgresql:// URL (this one does not parse as a URL)"
  if (!PROTOCOLS.has(url.protocol)) return `a postgres:// or postgresql:// URL, not ${url.protocol}//`
  // A socket folder may come as ?host=/run/postgresql with no host in the authority.
  if (url.hostname === "" && !(url.searchParams.get("host") ?? "").startsWith("/")) return "a postgres:// URL naming its server (postgres://user@host:5432/db)"
  if (decodeURIComponent(url.pathname.replace(/^\//, "")).includes("/")) return "a postgres:// URL whose path is one database name"
  return undefined
}

/** The server a URL names, for people: `host:port/db` (no user, no password, no parameters). */
export const pgServerName = (s: string): string => {
  const url = parse(s)
  if (url === undefined) return "(an unparsable storage.url)"
  const host = url.hostname !== "" ? url.hostname : (url.searchParams.get("host") ?? "localhost")
  const database = decodeURIComponent(url.pathname.replace(/^\//, "")) || decodeURIComponent(url.username) || "(default database)"
  return `${host}:${url.port !== "" ? url.port : "5432"}/${database}`
}
