/** The partial double answers what it was given and names what it was not. */
import { describe, expect, it } from "vitest"
import { partialDouble } from "../support/partialDouble.ts"

interface Shape {
  readonly read: (n: number) => number
  readonly write: (n: number) => void
}

describe("partialDouble", () => {
  it("answers the given members and fails on another, naming the service and the member", () => {
    const d = partialDouble<Shape>("Store", { read: (n) => n + 1 })
    expect(d.read(1)).toBe(2)
    expect(() => d.write(1)).toThrow("Store.write is not part of this test's double (it gives read)")
  })

  it("is not mistaken for a promise (an await of it does not reach for a missing member)", async () => {
    const d = partialDouble<Shape>("Store", {})
    expect(await Promise.resolve(d)).toBe(d)
  })
})
