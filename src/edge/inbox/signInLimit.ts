/**
 * Rate limit of the inbox sign-in, per client address (the socket's peer, or the forwarded client
 * behind a `bridge.trusted_proxies` proxy): after `maxFailures` wrong admin keys within
 * `window`, the address's next attempts are refused without the key being looked at, until the
 * oldest of those failures is older than the window. A successful sign-in clears the address.
 *
 * An attempt is charged as a failure when it starts (`attempt`) and the charge is taken back on
 * success (`succeeded`), so parallel guesses cannot all pass the gate before any failure is counted.
 *
 * The table is bounded: past `maxAddresses`, the address whose last failure is oldest goes first
 * (so addresses with nothing left in the window go before any that is still counted). A flood of addresses therefore costs a fixed
 * amount of memory; it can push out an older address's count, but each flooding address is itself
 * limited, so that buys no more guesses than the flood's own addresses already have.
 */
import { Clock, Duration, Effect, Ref } from "effect"
import { plainAddress } from "../../common/trustedProxies.ts"

export interface SignInLimitPolicy {
  /** Wrong keys from one address within `window` before its attempts are refused. */
  readonly maxFailures: number
  readonly window: Duration.DurationInput
  /** Addresses remembered at most. */
  readonly maxAddresses: number
}

export const DEFAULT_SIGN_IN_LIMIT: SignInLimitPolicy = { maxFailures: 5, window: Duration.minutes(5), maxAddresses: 1024 }

/** Failure times (epoch ms, oldest first, at most `maxFailures`) by address; Map order = last failure, oldest first. */
export type FailureTable = ReadonlyMap<string, ReadonlyArray<number>>

export type Attempt =
  | { readonly _tag: "Allowed"; /** This attempt, if it fails, is the one that locks the address. */ readonly last: boolean }
  | { readonly _tag: "Refused"; /** Until the address may try again, whole seconds (at least 1). */ readonly retryAfterSeconds: number }

export interface Limits {
  readonly maxFailures: number
  readonly windowMs: number
  readonly maxAddresses: number
}

export const limitsOf = (policy: SignInLimitPolicy): Limits => ({
  maxFailures: Math.max(1, Math.floor(policy.maxFailures)),
  windowMs: Duration.toMillis(policy.window),
  maxAddresses: Math.max(1, Math.floor(policy.maxAddresses))
})

const recent = (failures: ReadonlyArray<number>, now: number, limits: Limits) => failures.filter((t) => t > now - limits.windowMs)

/**
 * Pure step of one attempt from `address` at `now`: either refused (the address has `maxFailures`
 * failures in the window) or allowed, with the attempt recorded as a failure in the returned table.
 */
export const attemptAt = (table: FailureTable, address: string, now: number, limits: Limits): readonly [Attempt, FailureTable] => {
  const failures = recent(table.get(address) ?? [], now, limits)
  const oldest = failures[0]
  if (failures.length >= limits.maxFailures && oldest !== undefined) {
    const retryAfterSeconds = Math.max(1, Math.ceil((oldest + limits.windowMs - now) / 1000))
    return [{ _tag: "Refused", retryAfterSeconds }, table]
  }
  const charged = [...failures, now].slice(-limits.maxFailures)
  const next = new Map(table)
  // Re-inserted at the end: the Map stays ordered by last failure, oldest first.
  next.delete(address)
  evictDownTo(next, limits.maxAddresses - 1)
  next.set(address, charged)
  return [{ _tag: "Allowed", last: charged.length >= limits.maxFailures }, next]
}

/**
 * Drops the addresses whose last failure is oldest until at most `size` remain. The Map's order is
 * that of the last failure, so addresses with nothing left in the window are always the first to go.
 */
const evictDownTo = (table: Map<string, ReadonlyArray<number>>, size: number) => {
  for (const address of table.keys()) {
    if (table.size <= size) break
    table.delete(address)
  }
}

/** Pure step of a successful sign-in: the address starts over. */
export const succeededAt = (table: FailureTable, address: string): FailureTable => {
  if (!table.has(address)) return table
  const next = new Map(table)
  next.delete(address)
  return next
}

export interface SignInLimitShape {
  readonly policy: SignInLimitPolicy
  /** Starts a sign-in attempt from `address`, charged as a failure until `succeeded` is called. */
  readonly attempt: (address: string) => Effect.Effect<Attempt>
  /** The attempt from `address` signed in: its failures are forgotten. */
  readonly succeeded: (address: string) => Effect.Effect<void>
  /** How many addresses are remembered (for tests of the bound). */
  readonly size: Effect.Effect<number>
}

export const makeSignInLimit = (policy: SignInLimitPolicy = DEFAULT_SIGN_IN_LIMIT): Effect.Effect<SignInLimitShape> =>
  Effect.gen(function* () {
    const limits = limitsOf(policy)
    const table = yield* Ref.make<FailureTable>(new Map())
    return {
      policy,
      attempt: (address) => Effect.flatMap(Clock.currentTimeMillis, (now) => Ref.modify(table, (t) => attemptAt(t, address, now, limits))),
      succeeded: (address) => Ref.update(table, (t) => succeededAt(t, address)),
      size: Effect.map(Ref.get(table), (t) => t.size)
    }
  })

/**
 * The socket peer as the limit names it, IPv4-mapped IPv6 as plain IPv4. Without one (in-process
 * requests) all share a name. Behind a trusted proxy the sign-in counts the forwarded client
 * address instead (`InboxWeb.clientAddress`, `common/trustedProxies.ts`).
 */
export const limitAddress = (remote: string | undefined): string => {
  if (remote === undefined || remote.length === 0) return "unknown"
  return plainAddress(remote) ?? remote.toLowerCase()
}
