/**
 * The OAuth credentials this process knows in plain text, each on the Redactor's mask list while it
 * may still work, like client keys (`auth/liveKeys.ts`). The store keeps only digests of codes and
 * tokens, so a credential is known here only from the moments this process holds it: issued here
 * (the provider's `upsert` of an access token, refresh token, authorization code, registration
 * access token, or of a registered client with its secret) or presented to it and found in the
 * store (the provider's `find`: a token checked on a request, a code or refresh token redeemed at
 * another replica than the one that issued it, a client looked up for its authentication).
 *
 * Off the list again when it cannot work any more: destroyed (revoked, or a code reused, which ends
 * its grant), its grant ended, its bridge client revoked (`sweep` with the live clients, run on every
 * change of the `keys` topic, whichever replica revoked, and once a minute), or past its expiry. A
 * code or refresh token used up stays masked one more minute (`CONSUMED_GRACE_MS`: the logs around
 * its use, a replay), then goes. A client secret with no expiry of its own is kept a day past the
 * last time this process saw it (`SEEN_TTL_MS`).
 *
 * A credential of a client a sweep found revoked is not registered again when it is found (the
 * edge re-checks a revoked client's open calls with its token).
 *
 * Bounded: at most `MAX_LIVE_CREDENTIALS` values (and as many revoked clients' names); past that,
 * the one that expires first goes (each one costs the Redactor's search a rebuild on every change
 * of the list).
 */
import { Effect } from "effect"
import type { RedactorShape } from "../../common/Redactor.ts"

export const MAX_LIVE_CREDENTIALS = 512
export const CONSUMED_GRACE_MS = 60_000
export const SEEN_TTL_MS = 86_400_000

export interface CredentialInfo {
  /** When it stops working (epoch ms). */
  readonly expiresAt: number
  /** The grant it belongs to (tokens and codes). */
  readonly grantId?: string | undefined
  /** The bridge client its grant was approved as (tokens and codes). */
  readonly accountId?: string | undefined
  /** The OAuth client whose secret it is (a registered client's `client_secret`). */
  readonly secretOf?: string | undefined
}

export interface LiveCredentials {
  /** `value` may work until `info.expiresAt`: registered, unless it is already (then its entry is updated). */
  readonly saw: (value: string, info: CredentialInfo, now: number) => Effect.Effect<void>
  /** `value` was used up at `now`: it goes `CONSUMED_GRACE_MS` later, or at its expiry if sooner. */
  readonly consumed: (value: string, now: number) => Effect.Effect<void>
  /** `value` no longer works: unregistered, if this process knew it. */
  readonly gone: (value: string) => Effect.Effect<void>
  /** Every value of the grant goes. */
  readonly goneGrant: (grantId: string) => Effect.Effect<void>
  /** The secret of the OAuth client goes (its registration deleted). */
  readonly goneClient: (clientId: string) => Effect.Effect<void>
  /** Every value expired at `now` goes, and (given `liveAccounts`) every one of a bridge client not in it. */
  readonly sweep: (now: number, liveAccounts?: ReadonlySet<string>) => Effect.Effect<void>
  /** How many values are known (tests, and whether a sweep by accounts is worth a read). */
  readonly size: () => number
}

export const makeLiveCredentials = (redactor: RedactorShape, capacity = MAX_LIVE_CREDENTIALS): LiveCredentials => {
  const known = new Map<string, CredentialInfo>()
  // Bridge clients a sweep found revoked (a revoked client never comes back: a new connection is a
  // new client): a credential of one, found again (a re-check of its open call), is not registered.
  const dead = new Set<string>()
  const forget = (values: ReadonlyArray<string>) =>
    Effect.forEach(values, (value) =>
      Effect.suspend(() => {
        if (!known.delete(value)) return Effect.void
        // Each unregistration rebuilds the Redactor's search: the fiber yields between them.
        return Effect.zipRight(redactor.unregisterSecret(value), Effect.yieldNow())
      }), { discard: true })
  const where = (keep: (info: CredentialInfo) => boolean) => [...known].filter(([, info]) => !keep(info)).map(([value]) => value)

  return {
    saw: (value, info, now) =>
      Effect.suspend(() => {
        if (info.expiresAt <= now || (info.accountId !== undefined && dead.has(info.accountId))) return forget([value])
        const had = known.get(value)
        known.set(value, had === undefined ? info : { ...had, ...info })
        if (had !== undefined) return Effect.void
        // Over the bound: the value that stops working first goes (never the one just seen).
        let soonest: string | undefined
        if (known.size > capacity) {
          for (const [v, i] of known) if (v !== value && (soonest === undefined || i.expiresAt < known.get(soonest)!.expiresAt)) soonest = v
        }
        return Effect.zipRight(redactor.registerSecret(value), soonest === undefined ? Effect.void : forget([soonest]))
      }),
    consumed: (value, now) =>
      Effect.sync(() => {
        const info = known.get(value)
        if (info !== undefined) known.set(value, { ...info, expiresAt: Math.min(info.expiresAt, now + CONSUMED_GRACE_MS) })
      }),
    gone: (value) => forget([value]),
    goneGrant: (grantId) => Effect.suspend(() => forget(where((i) => i.grantId !== grantId))),
    goneClient: (clientId) => Effect.suspend(() => forget(where((i) => i.secretOf !== clientId))),
    sweep: (now, liveAccounts) =>
      Effect.suspend(() => {
        if (liveAccounts !== undefined) {
          for (const info of known.values()) {
            if (info.accountId === undefined || liveAccounts.has(info.accountId) || dead.has(info.accountId)) continue
            if (dead.size >= capacity) dead.delete(dead.values().next().value!)
            dead.add(info.accountId)
          }
        }
        return forget(where((i) => i.expiresAt > now && (i.accountId === undefined || !dead.has(i.accountId))))
      }),
    size: () => known.size
  }
}
