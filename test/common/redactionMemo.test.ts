/**
 * The Redactor's memo (`RedactionMemo`): kept values are returned only under the mask list they
 * were made with, count their masked texts again when served, and the least recently used goes
 * first past the capacity.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { makeMetrics, Metrics } from "../../src/common/Metrics.ts"
import { Redactor, RedactorLive } from "../../src/common/Redactor.ts"
import { MASK } from "../../src/domain/redact/redact.ts"

/** A Redactor with its own metrics registry, and the redactions counter's value. */
const setup = Effect.gen(function* () {
  const metrics = makeMetrics()
  const redactor = yield* Effect.provide(Redactor, RedactorLive).pipe(Effect.provideService(Metrics, metrics))
  const applied = () =>
    Effect.promise(() => metrics.render()).pipe(
      Effect.map((text) => Number(/^agent_bridge_redactions_applied_total (\d+)/m.exec(text)?.[1] ?? "0"))
    )
  return { redactor, applied }
})

const SECRET = "zz-memo-secret-4711"
const TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"

describe("RedactionMemo", () => {
  it.effect("keeps what it made, by key, and made it once", () =>
    Effect.gen(function* () {
      const { redactor } = yield* setup
      const memo = redactor.memo<{ text: string }>(4)
      expect(memo.get("a")).toBeUndefined()
      let made = 0
      const value = memo.make("a", () => ({ text: redactor.text(`x ${(made += 1)}`) }))
      expect(memo.get("a")).toBe(value)
      expect(memo.get("b")).toBeUndefined()
      expect(made).toBe(1)
    }))

  it.effect("a value made before a secret was registered is never served after", () =>
    Effect.gen(function* () {
      const { redactor } = yield* setup
      const memo = redactor.memo<string>(4)
      const before = memo.make("k", () => redactor.text(`the key is ${SECRET}`))
      expect(before).toBe(`the key is ${SECRET}`)
      yield* redactor.registerSecret(SECRET)
      expect(memo.get("k")).toBeUndefined()
      const after = memo.make("k", () => redactor.text(`the key is ${SECRET}`))
      expect(after).toBe(`the key is ${MASK}`)
      expect(memo.get("k")).toBe(after)
    }))

  it.effect("a value made while a secret was registered is never served after it is unregistered", () =>
    Effect.gen(function* () {
      const { redactor } = yield* setup
      yield* redactor.registerSecret(SECRET)
      const memo = redactor.memo<string>(4)
      expect(memo.make("k", () => redactor.text(`the key is ${SECRET}`))).toBe(`the key is ${MASK}`)
      yield* redactor.unregisterSecret(SECRET)
      expect(memo.get("k")).toBeUndefined()
      expect(memo.make("k", () => redactor.text(`the key is ${SECRET}`))).toBe(`the key is ${SECRET}`)
      // Registered again: the view made without it is stale in turn.
      yield* redactor.registerSecret(SECRET)
      expect(memo.get("k")).toBeUndefined()
    }))

  it.effect("registering a secret already registered (or unregistering one that is not) keeps what is kept", () =>
    Effect.gen(function* () {
      const { redactor } = yield* setup
      yield* redactor.registerSecret(SECRET)
      const memo = redactor.memo<string>(4)
      const value = memo.make("k", () => redactor.text(`the key is ${SECRET}`))
      yield* redactor.registerSecret(SECRET)
      yield* redactor.unregisterSecret("zz-never-registered-0815")
      expect(memo.get("k")).toBe(value)
    }))

  it.effect("serving a kept value counts its masked texts again", () =>
    Effect.gen(function* () {
      const { redactor, applied } = yield* setup
      const memo = redactor.memo<ReadonlyArray<string>>(4)
      const start = yield* applied()
      memo.make("two", () => [redactor.text(`a ${TOKEN}`), redactor.text("nothing here"), redactor.text(`b ${TOKEN}`)])
      expect((yield* applied()) - start).toBe(2)
      memo.get("two")
      memo.get("two")
      expect((yield* applied()) - start).toBe(6)
      memo.make("none", () => [redactor.text("plain")])
      memo.get("none")
      expect((yield* applied()) - start).toBe(6)
    }))

  it.effect("keeps at most its capacity, dropping the least recently used", () =>
    Effect.gen(function* () {
      const { redactor } = yield* setup
      const memo = redactor.memo<number>(2)
      memo.make("one", () => 1)
      memo.make("two", () => 2)
      expect(memo.get("one")).toBe(1) // "two" is now the least recent
      memo.make("three", () => 3)
      expect(memo.get("two")).toBeUndefined()
      expect(memo.get("one")).toBe(1)
      expect(memo.get("three")).toBe(3)
    }))

  it.effect("a make that throws keeps nothing", () =>
    Effect.gen(function* () {
      const { redactor } = yield* setup
      const memo = redactor.memo<number>(2)
      expect(() => memo.make("bad", () => { throw new Error("boom") })).toThrow("boom")
      expect(memo.get("bad")).toBeUndefined()
    }))
})
