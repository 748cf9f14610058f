/**
 * One line for a failure that ends a CLI verb or the daemon's start: what failed, the path or port,
 * and what to do. A stack trace (or Effect's `SqlError: Failed to execute statement`) tells an
 * operator nothing; the causes worth naming are a port in use, storage the bridge cannot write (a
 * full disk, a read-only data folder), a database that cannot be opened, and a PostgreSQL server
 * (`storage.url`) that does not answer, named as host:port/db and never by its URL.
 */
import { Cause } from "effect"
import { storageFaultMessage, storageFaultOf } from "../storage/faults.ts"

export interface FailurePlace {
  /** What was being done, e.g. "agent-bridge serve" or "client add". */
  readonly what: string
  readonly dataDir: string
  readonly host?: string
  readonly port?: number
}

/** The chain of `.cause`s of `u`, the outermost first (at most 6). */
const chain = (u: unknown): ReadonlyArray<unknown> => {
  const out: Array<unknown> = []
  for (let at = u, depth = 0; depth < 6 && at !== undefined && at !== null; depth++) {
    out.push(at)
    at = typeof at === "object" ? (at as { cause?: unknown }).cause : undefined
  }
  return out
}

const codeOf = (u: unknown): string | undefined =>
  typeof u === "object" && u !== null && typeof (u as { code?: unknown }).code === "string" ? (u as { code: string }).code : undefined

const messageOf = (u: unknown): string =>
  u instanceof Error ? u.message : typeof u === "object" && u !== null && typeof (u as { message?: unknown }).message === "string" ? (u as { message: string }).message : String(u)

/** A line for `error` (a thrown or failed value); see the module comment. */
export const failureLine = (error: unknown, place: FailurePlace): string => {
  const errors = chain(error)
  // The cluster's own port (PostgreSQL replicas): named with its keys, not bridge.port's.
  const cluster = errors.find((e) => ["ClusterListenFailed", "ClusterPoolTooSmall", "ClusterSecretMissing"].includes(String((e as { _tag?: unknown })._tag)))
  if (cluster !== undefined) return `${place.what}: ${messageOf(cluster)}`
  const listen = errors.find((e) => ["EADDRINUSE", "EADDRNOTAVAIL"].includes(codeOf(e) ?? "") || (codeOf(e) === "EACCES" && (e as { syscall?: unknown }).syscall === "listen"))
  if (listen !== undefined && place.port !== undefined) {
    const at = `${place.host ?? "127.0.0.1"}:${place.port}`
    const code = codeOf(listen)
    const why = code === "EADDRINUSE" ? "is in use by another process" : code === "EACCES" ? "needs privileges this process lacks" : "is not an address of this machine"
    return `${place.what}: cannot listen on ${at}: it ${why} (${code}); stop the other process or set bridge.port / bridge.host`
  }
  // Not the data dir's fault: the sentence names the server, and the key to check is storage.url.
  const unreachable = errors.find((e) => (e as { _tag?: unknown })._tag === "StorageUnreachable")
  if (unreachable !== undefined) return `${place.what}: ${messageOf(unreachable)}`
  const fault = storageFaultOf(error)
  if (fault !== null) return `${storageFaultMessage(fault, place.what, place.dataDir)} (bridge.data_dir)`
  // Say what went wrong beneath a wrapper such as SqlError("Failed to execute statement").
  const texts = errors.map(messageOf).filter((m, i, all) => m !== "" && all.indexOf(m) === i)
  return `${place.what}: ${texts.join(": ") || "failed"}`
}

/** The same for an Effect `Cause` (its first failure or defect). */
export const causeLine = (cause: Cause.Cause<unknown>, place: FailurePlace): string => failureLine(Cause.squash(cause), place)
