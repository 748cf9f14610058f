/**
 * The conditions the gitleaks rules put on a trigger's place before any regex is tried
 * (`rules/gitleaks/triggers.ts`): the class a regex wants after its literal (`classAt`) and
 * gitleaks' assignment ahead (`assignmentAhead`). Each must be necessary: a place it refuses is one
 * where the rule's regex cannot match.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { assignmentAhead, classAt } from "../../src/domain/redact/rules/gitleaks/triggers.ts"

describe("classAt", () => {
  it("reads a class that must stand there, with its least count", () => {
    expect(classAt("00[A-Za-z0-9]{13}!", 2)).toEqual({ chars: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", count: 13 })
    expect(classAt("x[a-f0-9]{32,}", 1)).toEqual({ chars: "abcdef0123456789", count: 32 })
    expect(classAt("x[\\w-]{90,120}", 1)?.count).toBe(90)
    expect(classAt("x[\\w-]+", 1)?.chars).toContain("-")
    expect(classAt("x[ab]", 1)).toEqual({ chars: "ab", count: 1 })
  })

  it("reads nothing where a class may be absent or is not read", () => {
    expect(classAt("x[ab]?", 1)).toBeUndefined()
    expect(classAt("x[ab]*", 1)).toBeUndefined()
    expect(classAt("x[ab]{0,3}", 1)).toBeUndefined()
    expect(classAt("x[^ab]", 1)).toBeUndefined()
    expect(classAt("x[\\s]", 1)).toBeUndefined()
    expect(classAt("x[\\x00-\\x7f]", 1)).toBeUndefined()
    expect(classAt("x(?:ab)", 1)).toBeUndefined()
    expect(classAt("x[z-a]", 1)).toBeUndefined()
  })
})

describe("assignmentAhead", () => {
  const ASSIGNMENT = /(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)/y
  const matches = (text: string, at: number) => {
    ASSIGNMENT.lastIndex = at
    return ASSIGNMENT.test(text)
  }

  it("is true wherever gitleaks' assignment matches (random text)", () => {
    const alphabet = fc.constantFrom(..."aZ0_.- \t\n'\"=>:|?,;x\u00a0\u3000".split(""))
    fc.assert(
      fc.property(fc.stringOf(alphabet, { maxLength: 40 }), (text) => {
        for (let at = 0; at <= text.length; at++) if (matches(text, at)) expect(assignmentAhead(text, at), JSON.stringify([text, at])).toBe(true)
      }),
      { numRuns: 500, seed: 23 }
    )
  })

  it("refuses what cannot be an assignment", () => {
    expect(assignmentAhead("key: value", 3)).toBe(true)
    expect(assignmentAhead("_secret = x", 7)).toBe(true)
    expect(assignmentAhead("keyboard shortcuts are listed", 3)).toBe(false)
    expect(assignmentAhead("key;", 3)).toBe(false)
    expect(assignmentAhead("key" + " ".repeat(30) + "=", 3)).toBe(false)
    expect(assignmentAhead("key", 3)).toBe(false)
  })
})
