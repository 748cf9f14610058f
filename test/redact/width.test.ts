/** The width of a regex source (`src/domain/redact/rules/gitleaks/width.ts`), checked against what the regex matches. */
import { describe, expect, it } from "vitest"
import { widthOf } from "../../src/domain/redact/rules/gitleaks/width.ts"

describe("regex width", () => {
  it("counts literals, escapes, classes and quantifiers", () => {
    expect(widthOf("abc")).toEqual({ min: 3, max: 3 })
    expect(widthOf("\\b[A-Za-z0-9]{6}_[A-Za-z0-9]{29}")).toEqual({ min: 36, max: 36 })
    expect(widthOf("\\x60\\d?x{2,5}")).toEqual({ min: 3, max: 7 })
    expect(widthOf("a+").max).toBe(Infinity)
    expect(widthOf("[\\]x]{3}")).toEqual({ min: 3, max: 3 })
  })

  it("takes the narrowest and widest branch of a group, and nothing for anchors and look-arounds", () => {
    expect(widthOf("(?:ab|cdef)g")).toEqual({ min: 3, max: 5 })
    expect(widthOf("(?:^|[\\s>=])(?<=x)(?!y)z$")).toEqual({ min: 1, max: 2 })
    expect(widthOf("(?<name>ab)\\.")).toEqual({ min: 3, max: 3 })
  })

  it("counts only the branch a prefix stops in", () => {
    // The prefix of `\b(?:ab|cdefgh|x[0-9]{4}` up to the keyword after `x[0-9]{4}`.
    expect(widthOf("\\b(?:ab|cdefgh|x[0-9]{4}")).toEqual({ min: 5, max: 5 })
    expect(widthOf("\\b(\\b([sS][gG][pP]_")).toEqual({ min: 4, max: 4 })
  })
})
