/**
 * Rate limit of the inbox sign-in, per client address (the socket's peer, or the forwarded client
 * behind a `bridge.trusted_proxies` proxy): after `maxFailures` wrong admin keys within
 * `window`, the address's next attempts are refused without the key being looked at, until the
 * oldest of those failures is older than the window. A successful sign-in clears the address.
 *
 * An attempt is charged as a failure when it starts (`attempt`) and the charge is taken back on
 * success (`succeeded`), so parallel guesses cannot all pass the gate before any failure is counted.
 *
 * The failures are rows of the database (`services/inbox/SignInFailures.ts`), so the limit holds
 * for every replica on one database together: five wrong keys spread over three replicas lock the
 * address on all three, and a sign-in through any of them clears it. An attempt is one transaction
 * holding the address's row, so parallel guesses through several replicas are counted one by one.
 * Addresses whose last failure has left the window are deleted by the retention sweep
 * (`services/inbox/sessionRetention.ts`).
 *
 * The table is bounded: past `maxAddresses`, the address whose last failure is oldest goes first
 * (so addresses with nothing left in the window go before any that is still counted). A flood of
 * addresses therefore costs a fixed amount of room; it can push out an older address's count, but
 * each flooding address is itself limited, so that buys no more guesses than the flood's own
 * addresses already have.
 */
import { Clock, Duration, Effect } from "effect"
import { plainAddress } from "../../common/trustedProxies.ts"
import type { StoreFailure } from "../../services/inbox/InboxStore.ts"
import { SignInFailures } from "../../services/inbox/SignInFailures.ts"

export interface SignInLimitPolicy {
  /** Wrong keys from one address within `window` before its attempts are refused. */
  readonly maxFailures: number
  readonly window: Duration.DurationInput
  /** Addresses remembered at most. */
  readonly maxAddresses: number
}

export const DEFAULT_SIGN_IN_LIMIT: SignInLimitPolicy = { maxFailures: 5, window: Duration.minutes(5), maxAddresses: 1024 }

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
 * Pure step of one attempt at `now` by an address whose failure times (oldest first) are
 * `failures`: either refused (`maxFailures` of them in the window; nothing to write) or allowed,
 * with the attempt charged as a failure in the times to keep (at most `maxFailures`, in the window).
 */
export const attemptOn = (failures: ReadonlyArray<number>, now: number, limits: Limits): readonly [Attempt, ReadonlyArray<number> | null] => {
  const inWindow = recent(failures, now, limits)
  const oldest = inWindow[0]
  if (inWindow.length >= limits.maxFailures && oldest !== undefined) {
    const retryAfterSeconds = Math.max(1, Math.ceil((oldest + limits.windowMs - now) / 1000))
    return [{ _tag: "Refused", retryAfterSeconds }, null]
  }
  const charged = [...inWindow, now].slice(-limits.maxFailures)
  return [{ _tag: "Allowed", last: charged.length >= limits.maxFailures }, charged]
}

export interface SignInLimitShape {
  readonly policy: SignInLimitPolicy
  /** Starts a sign-in attempt from `address`, charged as a failure until `succeeded` is called. */
  readonly attempt: (address: string) => Effect.Effect<Attempt, StoreFailure>
  /** The attempt from `address` signed in: its failures are forgotten. */
  readonly succeeded: (address: string) => Effect.Effect<void, StoreFailure>
  /** How many addresses are remembered (for tests of the bound). */
  readonly size: Effect.Effect<number, StoreFailure>
}

/**
 * The limit over the failures' table (`SignInFailures`), shared by every replica on the database.
 * After an allowed attempt the table is bounded again (`trim`): a failure there (two trims that
 * collided on PostgreSQL, say) is logged and left to the next attempt or the retention sweep, never
 * the sign-in's answer.
 */
export const makeSignInLimit = (policy: SignInLimitPolicy = DEFAULT_SIGN_IN_LIMIT): Effect.Effect<SignInLimitShape, never, SignInFailures> =>
  Effect.gen(function* () {
    const limits = limitsOf(policy)
    const table = yield* SignInFailures
    const bound = (address: string) =>
      table.trim(address, limits.maxAddresses).pipe(
        Effect.catchAll((e) => Effect.logWarning("inbox sign-in limit: bounding the table failed; the next attempt tries again", e))
      )
    return {
      policy,
      attempt: (address) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => table.update(address, now, (failures) => attemptOn(failures, now, limits))).pipe(
          Effect.tap((a) => (a._tag === "Allowed" ? bound(address) : Effect.void))
        ),
      succeeded: (address) => table.forget(address),
      size: table.size
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
