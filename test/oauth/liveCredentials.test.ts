/**
 * The OAuth credentials on the Redactor's mask list (`services/oauth/liveCredentials.ts`): masked
 * from the moment they are seen, gone when they cannot work any more (expired, used up a minute
 * ago, destroyed, their grant or client ended, their bridge client revoked), and never more than
 * the bound, the one that expires first leaving first.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { makeMetrics, Metrics } from "../../src/common/Metrics.ts"
import { Redactor, RedactorLive } from "../../src/common/Redactor.ts"
import { MASK } from "../../src/domain/redact/redact.ts"
import { CONSUMED_GRACE_MS, makeLiveCredentials } from "../../src/services/oauth/liveCredentials.ts"

const setup = (capacity?: number) =>
  Effect.gen(function* () {
    const redactor = yield* Effect.provide(Redactor, RedactorLive).pipe(Effect.provideService(Metrics, makeMetrics()))
    const live = makeLiveCredentials(redactor, capacity)
    const masked = (value: string) => redactor.text(`a ${value} b`) === `a ${MASK} b`
    return { live, masked }
  })

const token = (n: number) => `tok${String(n).padStart(4, "0")}-Zq8v3LmW0pXc7rTy2bNd5`
const NOW = 1_000_000

describe("live OAuth credentials", () => {
  it.effect("a credential seen is masked until it expires; one already expired is not registered", () =>
    Effect.gen(function* () {
      const { live, masked } = yield* setup()
      yield* live.saw(token(1), { expiresAt: NOW + 1000, accountId: "app" }, NOW)
      yield* live.saw(token(2), { expiresAt: NOW - 1 }, NOW)
      expect(masked(token(1))).toBe(true)
      expect(masked(token(2))).toBe(false)
      yield* live.sweep(NOW + 999)
      expect(masked(token(1))).toBe(true)
      yield* live.sweep(NOW + 1000)
      expect(masked(token(1))).toBe(false)
      expect(live.size()).toBe(0)
    }))

  it.effect("a used-up credential stays masked one more minute, then goes", () =>
    Effect.gen(function* () {
      const { live, masked } = yield* setup()
      yield* live.saw(token(1), { expiresAt: NOW + 30 * 86_400_000 }, NOW)
      yield* live.consumed(token(1), NOW)
      yield* live.sweep(NOW + CONSUMED_GRACE_MS - 1)
      expect(masked(token(1))).toBe(true)
      yield* live.sweep(NOW + CONSUMED_GRACE_MS)
      expect(masked(token(1))).toBe(false)
    }))

  it.effect("destroyed, its grant ended, its client's registration deleted, or its bridge client revoked: it goes", () =>
    Effect.gen(function* () {
      const { live, masked } = yield* setup()
      const later = NOW + 3_600_000
      yield* live.saw(token(1), { expiresAt: later, grantId: "g1", accountId: "a" }, NOW)
      yield* live.saw(token(2), { expiresAt: later, grantId: "g1", accountId: "a" }, NOW)
      yield* live.saw(token(3), { expiresAt: later, grantId: "g2", accountId: "b" }, NOW)
      yield* live.saw(token(4), { expiresAt: later, secretOf: "client-x" }, NOW)
      yield* live.saw(token(5), { expiresAt: later, grantId: "g3", accountId: "c" }, NOW)
      yield* live.gone(token(5))
      expect(masked(token(5))).toBe(false)
      yield* live.goneGrant("g1")
      expect([masked(token(1)), masked(token(2)), masked(token(3))]).toEqual([false, false, true])
      // Only the bridge client "b" is revoked: a client secret (no account) stays.
      yield* live.sweep(NOW, new Set(["a"]))
      expect([masked(token(3)), masked(token(4))]).toEqual([false, true])
      // Found again after (the edge re-checking its open call): not registered again.
      yield* live.saw(token(3), { expiresAt: later, grantId: "g2", accountId: "b" }, NOW)
      expect(masked(token(3))).toBe(false)
      yield* live.goneClient("client-x")
      expect(masked(token(4))).toBe(false)
      expect(live.size()).toBe(0)
    }))

  it.effect("never holds more than its bound: the one that expires first goes", () =>
    Effect.gen(function* () {
      const { live, masked } = yield* setup(3)
      yield* live.saw(token(1), { expiresAt: NOW + 5000 }, NOW)
      yield* live.saw(token(2), { expiresAt: NOW + 1000 }, NOW)
      yield* live.saw(token(3), { expiresAt: NOW + 9000 }, NOW)
      // Seen again: no new entry.
      yield* live.saw(token(3), { expiresAt: NOW + 9000 }, NOW)
      expect(live.size()).toBe(3)
      yield* live.saw(token(4), { expiresAt: NOW + 500 }, NOW)
      expect(live.size()).toBe(3)
      expect([1, 2, 3, 4].map((n) => masked(token(n)))).toEqual([true, false, true, true])
      for (let n = 5; n < 40; n++) yield* live.saw(token(n), { expiresAt: NOW + 100_000 + n }, NOW)
      expect(live.size()).toBe(3)
    }))
})
