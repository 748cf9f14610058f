/** `nulPath`: the first string (or key) holding U+0000, by its path, at any depth (issue 37 item 8a). */
import { describe, expect, it } from "vitest"
import { nulPath, nulProblem, pathText } from "../../src/domain/text.ts"

describe("nulPath", () => {
  it("finds a NUL in a value or a key, by its path", () => {
    expect(nulPath({ a: "x", b: ["y", "z\u0000"] })).toEqual(["b", 1])
    expect(nulPath({ a: { "k\u0000": 1 } })).toEqual(["a", "k\u0000"])
    expect(nulPath("\u0000")).toEqual([])
    expect(pathText(nulPath({ message: { parts: [{ text: "hi\u0000" }] } })!)).toBe("message.parts.0.text")
  })
  it("finds none in clean values of any kind", () => {
    for (const v of [null, undefined, 1, true, "a", [], {}, { a: ["b", { c: "d" }] }, "\\u0000 written out"]) expect(nulPath(v)).toBeUndefined()
  })
  it("walks a value nested 200,000 deep without overflowing the stack", () => {
    const deep = JSON.parse("[".repeat(200_000) + '"a\\u0000"' + "]".repeat(200_000))
    expect(nulPath(deep)?.length).toBe(200_000)
  })
  it("nulProblem names the field", () => {
    expect(nulProblem("the text", "a\u0000")).toBe("the text must not hold a NUL character (U+0000)")
    expect(nulProblem("the text", "a")).toBeNull()
  })
})
