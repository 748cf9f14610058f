/**
 * Output windows and cuts (pure): 16 KiB of UTF-8 that never split a character, with multi-byte
 * characters at every window edge; offsets inside a character, at and past the end; previews.
 */
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { cutJsonStrings, cutUtf8, firstChars, lastChars, outputWindow, utf8 } from "../../src/domain/runs/window.ts"
import { WINDOW_BYTES } from "../../src/domain/limits.ts"

const whole = (text: string) => ({ base: 0, bytes: utf8(text), total: utf8(text).length })

/** Reads every window from 0 by following next_offset. */
const readAll = (text: string) => {
  const windows = []
  let offset: number | null = 0
  while (offset !== null) {
    const w = outputWindow(whole(text), offset)
    windows.push(w)
    offset = w.nextOffset
  }
  return windows
}

const chars = ["a", "é", "東", "🚀", "\u{10FFFF}"]
const textOf = fc.array(fc.constantFrom(...chars), { minLength: 0, maxLength: 12_000 }).map((a) => a.join(""))

describe("output windows", () => {
  it("windows tile the output exactly, each at most 16 KiB, never splitting a character", () => {
    fc.assert(
      fc.property(textOf, (text) => {
        const windows = readAll(text)
        expect(windows.map((w) => w.text).join("")).toBe(text)
        for (const w of windows) {
          expect(utf8(w.text).length).toBeLessThanOrEqual(WINDOW_BYTES)
          expect(w.text).not.toContain("\uFFFD")
          expect(w.total).toBe(utf8(text).length)
        }
        expect(windows.at(-1)?.nextOffset).toBeNull()
      }),
      { numRuns: 60 }
    )
  })

  it("puts a character of every width exactly across the 16 KiB edge", () => {
    for (const c of chars.slice(1)) {
      const width = utf8(c).length
      for (let shift = 1; shift < width; shift++) {
        // The multi-byte character starts `shift` bytes before the window edge.
        const text = "x".repeat(WINDOW_BYTES - shift) + c + "tail"
        const [first, second] = readAll(text)
        expect(first!.text).toBe("x".repeat(WINDOW_BYTES - shift))
        expect(first!.nextOffset).toBe(WINDOW_BYTES - shift)
        expect(second!.text).toBe(c + "tail")
        expect(second!.offset).toBe(WINDOW_BYTES - shift)
        expect(second!.nextOffset).toBeNull()
      }
      // Ending exactly on the edge: one full window, nothing more.
      const exact = "x".repeat(WINDOW_BYTES - width) + c
      expect(readAll(exact).length).toBe(1)
      expect(readAll(exact)[0]!.text).toBe(exact)
    }
  })

  it("an offset inside a character starts at the next one; at or past the end is empty with no next", () => {
    const text = "é東🚀z"
    expect(outputWindow(whole(text), 1)).toMatchObject({ offset: 2, text: "東🚀z" })
    expect(outputWindow(whole(text), 3)).toMatchObject({ offset: 5, text: "🚀z" })
    expect(outputWindow(whole(text), 6)).toMatchObject({ offset: 9, text: "z" })
    for (const offset of [10, 11, 1_000_000]) {
      expect(outputWindow(whole(text), offset)).toEqual({ offset, text: "", before: "", after: "", total: 10, nextOffset: null })
    }
  })

  it("carries up to 8192 characters of context on each side from a partial slice", () => {
    const text = "b".repeat(20_000) + "W".repeat(WINDOW_BYTES) + "a".repeat(20_000)
    const offset = 20_000
    const bytes = utf8(text)
    const slice = { base: 4_000, bytes: bytes.subarray(4_000, 60_000), total: bytes.length }
    const w = outputWindow(slice, offset)
    expect(w.text).toBe("W".repeat(WINDOW_BYTES))
    expect(w.before).toBe("b".repeat(8192))
    expect(w.after).toBe("a".repeat(8192))
    expect(w.nextOffset).toBe(offset + WINDOW_BYTES)
  })
})

describe("cuts and previews", () => {
  it("cuts any text at 16 KiB of UTF-8 on a character boundary", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...chars), { maxLength: 9000 }).map((a) => a.join("")), (s) => {
        const cut = cutUtf8(s)
        expect(utf8(cut.text).length).toBeLessThanOrEqual(16 * 1024)
        expect(s.startsWith(cut.text)).toBe(true)
        expect(cut.truncated).toBe(cut.text !== s)
        if (cut.truncated) expect(utf8(s.slice(cut.text.length, cut.text.length + 2)).length + utf8(cut.text).length).toBeGreaterThan(16 * 1024)
      }),
      { numRuns: 60 }
    )
  })

  it("cuts the strings of a JSON tree against one budget and says so", () => {
    const big = { a: "x".repeat(10_000), b: ["y".repeat(10_000)], n: 3 }
    const cut = cutJsonStrings(big)
    expect(cut.truncated).toBe(true)
    expect(cut.value.a.length + cut.value.b[0]!.length).toBe(16 * 1024)
    expect(cut.value.n).toBe(3)
    expect(cutJsonStrings({ a: "small" })).toEqual({ value: { a: "small" }, truncated: false })
  })

  it("counts characters, not UTF-16 units, in previews", () => {
    expect(firstChars("🚀🚀🚀", 2)).toBe("🚀🚀")
    expect(lastChars("🚀🚀🚀", 2)).toBe("🚀🚀")
    expect(firstChars("ab", 5)).toBe("ab")
    expect(firstChars("🚀".repeat(300), 200).length).toBe(400)
  })
})
