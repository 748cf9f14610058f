/** The one partial double (`src/common/unscripted.ts`) answers what it was given and names what it was not. */
import { Cause, Effect, Exit, Stream } from "effect"
import { describe, expect, it } from "vitest"
import { unscripted } from "../../src/common/unscripted.ts"

interface Shape {
  readonly read: (n: number) => Effect.Effect<number>
  readonly write: (n: number) => Effect.Effect<void>
  readonly watch: () => Stream.Stream<number>
}

const defectText = <A, E>(exit: Exit.Exit<A, E>) => (Exit.isFailure(exit) && Cause.isDie(exit.cause) ? String(Cause.squash(exit.cause)) : "not a defect")

describe("unscripted", () => {
  it("answers the given members; another is a defect naming the service, the member, the double and what it gives", async () => {
    const d = unscripted<Shape>("Store", "this StoreTest")({ read: (n) => Effect.succeed(n + 1) })
    expect(await Effect.runPromise(d.read(1))).toBe(2)
    expect(defectText(await Effect.runPromiseExit(d.write(1)))).toContain("Store.write is not scripted in this StoreTest (it gives read)")
  })

  it("a missing member that returns a stream fails the same way when the stream runs", async () => {
    const d = unscripted<Shape>("Store")({})
    expect(defectText(await Effect.runPromiseExit(Stream.runCollect(d.watch())))).toContain("Store.watch is not scripted in this double (it gives nothing)")
  })

  it("is not mistaken for a promise, and spreads to the members it was given", async () => {
    const d = unscripted<Shape>("Store")({ read: (n) => Effect.succeed(n) })
    expect(await Promise.resolve(d)).toBe(d)
    expect(Object.keys({ ...d })).toEqual(["read"])
  })
})
