/**
 * The embedded simulator never keeps the daemon's own port (`apartFrom` in `hermes/embedded.ts`): a
 * listener that got it is closed and started again, a bounded number of times.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import { apartFrom } from "../../src/hermes/embedded.ts"

/** A start that hands out `ports` in turn, each a resource whose release is recorded. */
const startsOn = (ports: ReadonlyArray<number>) => {
  const closed: Array<number> = []
  let next = 0
  const start = Effect.acquireRelease(
    Effect.sync(() => ports[next++] ?? 0),
    (port) => Effect.sync(() => void closed.push(port))
  )
  return { start, closed, started: () => next }
}

describe("the embedded simulator's port", () => {
  it.effect("a listener on the daemon's port is closed and started again; the one kept stays open", () =>
    Effect.gen(function* () {
      const s = startsOn([8765, 8765, 40001])
      const scope = yield* Scope.make()
      const port = yield* apartFrom(8765, s.start, (p) => p).pipe(Scope.extend(scope))
      expect(port).toBe(40001)
      expect(s.closed).toEqual([8765, 8765])
      yield* Scope.close(scope, Exit.void)
      expect(s.closed).toEqual([8765, 8765, 40001])
    }))

  it.scoped("any port goes when the daemon's own is 0 (ephemeral)", () =>
    Effect.gen(function* () {
      const s = startsOn([0])
      expect(yield* apartFrom(0, s.start, (p) => p)).toBe(0)
      expect(s.started()).toBe(1)
    }))

  it.scoped("gives up with a typed error after five listeners on the daemon's port, none left open", () =>
    Effect.gen(function* () {
      const s = startsOn([8765, 8765, 8765, 8765, 8765, 8765])
      const e = yield* Effect.flip(apartFrom(8765, s.start, (p) => p))
      expect(e._tag).toBe("SimServeError")
      expect(s.started()).toBe(5)
      expect(s.closed).toHaveLength(5)
    }))
})
