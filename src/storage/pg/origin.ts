/**
 * Which process a PostgreSQL session belongs to, as the change feed's triggers see it: every
 * connection a `DbPostgres` opens starts with `-c agent_bridge.origin=<id>` (a custom setting,
 * passed in the URL's `options`, after any options the operator gave), one id per pool. The
 * triggers put it in each NOTIFY's payload (`<origin> <key>`), so the feed can drop its own
 * process's commits, as SQLite's `data_version` never shows them: a write by this daemon does
 * not wake this daemon's waits a second time. A writer without it (the CLI on another pool, psql,
 * an older bridge) notifies with an empty origin: always another's.
 */
import { randomBytes } from "node:crypto"

export const ORIGIN_SETTING = "agent_bridge.origin"

/** A fresh id for one pool (hex, so it needs no quoting in `options`). */
export const newOrigin = (): string => randomBytes(8).toString("hex")

/** The URL with its sessions' origin set. */
export const withOrigin = (url: string, origin: string): string => {
  const parsed = new URL(url)
  const given = parsed.searchParams.get("options")
  parsed.searchParams.set("options", `${given === null || given.trim() === "" ? "" : `${given} `}-c ${ORIGIN_SETTING}=${origin}`)
  return parsed.toString()
}

/** The origin a URL's sessions carry, if `withOrigin` set one. */
export const originOf = (url: string): string | undefined => {
  try {
    const options = new URL(url).searchParams.get("options") ?? ""
    return new RegExp(`-c ${ORIGIN_SETTING.replace(".", "\\.")}=([0-9a-f]+)`).exec(options)?.[1]
  } catch {
    return undefined
  }
}

/** A NOTIFY payload `<origin> <key>` (the origin may be empty), as the triggers write it. */
export const parsePayload = (payload: string): { readonly origin: string; readonly key: string } => {
  const space = payload.indexOf(" ")
  return space < 0 ? { origin: "", key: payload } : { origin: payload.slice(0, space), key: payload.slice(space + 1) }
}
