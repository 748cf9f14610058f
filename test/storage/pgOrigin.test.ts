/**
 * The origin a pool's sessions carry (`src/storage/pg/origin.ts`): set in the URL's `options` after
 * the operator's own, read back by the change feed, and split off a NOTIFY payload.
 */
import { describe, expect, it } from "vitest"
import { newOrigin, originOf, parsePayload, withOrigin } from "../../src/storage/pg/origin.ts"

describe("a pool's origin", () => {
  it("is added to the URL's options after the operator's, and read back", () => {
    const origin = newOrigin()
    expect(origin).toMatch(/^[0-9a-f]{16}$/)
    const url = withOrigin("postgres://u:p%40ss@h:6543/db?sslmode=require&options=-c%20search_path%3Dbridge", origin)
    const parsed = new URL(url)
    expect(parsed.searchParams.get("options")).toBe(`-c search_path=bridge -c agent_bridge.origin=${origin}`)
    expect(parsed.searchParams.get("sslmode")).toBe("require")
    expect(parsed.password).toBe("p%40ss")
    expect(originOf(url)).toBe(origin)
    expect(new URL(withOrigin("postgres://h/db", origin)).searchParams.get("options")).toBe(`-c agent_bridge.origin=${origin}`)
    expect(originOf("postgres://h/db")).toBeUndefined()
    expect(newOrigin()).not.toBe(origin)
  })

  it("is split off a payload; a writer with none has an empty origin", () => {
    expect(parsePayload("0123abcd run_1")).toEqual({ origin: "0123abcd", key: "run_1" })
    expect(parsePayload(" *")).toEqual({ origin: "", key: "*" })
    expect(parsePayload("*")).toEqual({ origin: "", key: "*" })
  })
})
