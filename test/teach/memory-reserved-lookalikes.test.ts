/**
 * Reserved tag prefixes (`agent:`, `visibility:`, `project:`, `source:bridge:`) decide a note's owner
 * and visibility in the memory layer, so a client must not slip one in through a Unicode form that
 * folds to it: compatibility forms (full-width, small and presentation colons, math letters, long s),
 * case forms beyond ASCII (dotless i, Kelvin sign), and invisible format characters.
 */
import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { foldTag, isReservedTag, noteTags } from "../../src/services/memory/policy.ts"

const ZWSP = "\u200B"
const ZWJ = "\u200D"
const SHY = "\u00AD"
const BOM = "\uFEFF"
const RLO = "\u202E"
const WJ = "\u2060"
const CGJ = "\u034F"
const VS16 = "\uFE0F"

const lookalikes: ReadonlyArray<readonly [string, string]> = [
  ["long s", "\u017Fource:bridge:alice"],
  ["full-width letters and colons", "ＳＯＵＲＣＥ：ＢＲＩＤＧＥ：alice"],
  ["full-width colon", "agent：alice"],
  ["small colon", "agent\uFE55alice"],
  ["vertical presentation colon", "visibility\uFE13private"],
  ["full-width project", "ｐｒｏｊｅｃｔ:x"],
  ["math bold", "\u{1D41A}\u{1D420}\u{1D41E}\u{1D427}\u{1D42D}:x"],
  ["circled letter", "\u24D0gent:x"],
  ["modifier small a", "\u1D43gent:x"],
  ["dotless i", "v\u0131s\u0131b\u0131l\u0131ty:private"],
  ["mixed ASCII case", "SoUrCe:BrIdGe:admin"],
  ["zero-width space prefix", `${ZWSP}agent:alice`],
  ["zero-width joiner inside", `a${ZWJ}gent:alice`],
  ["soft hyphen before the colon", `project${SHY}:x`],
  ["byte-order mark prefix", `${BOM}source:bridge:bob`],
  ["right-to-left override prefix", `${RLO}visibility:private`],
  ["word joiner inside", `source:${WJ}bridge:bob`],
  ["combining grapheme joiner", `agent${CGJ}:x`],
  ["variation selector", `agent${VS16}:x`],
  ["ideographic space before", "\u3000agent:x"],
  ["no-break space before", "\u00A0project:x"],
  ["full-width upper AGENT", "ＡＧＥＮＴ:hermes/coder"]
]

const ordinary = [
  "agents", "agentic", "source:manual", "my-project:x", "project-x", "visibility", "ok",
  "café", "日本語", "ＯＫ", "release 1.2", "emoji👍", "naïve", "straße"
]

describe("reserved tags after Unicode folding", () => {
  it.each(lookalikes)("%s is reserved", (_name, tag) => {
    expect(isReservedTag(tag)).toBe(true)
  })

  it("every look-alike is dropped from a note and only the bridge's source tag stays", () => {
    const tags = noteTags("mallory", lookalikes.map(([, t]) => t))
    expect(tags).toEqual(Either.right(["source:bridge:mallory"]))
  })

  it("ordinary tags, Unicode ones included, stay exactly as written", () => {
    for (const tag of ordinary) expect(isReservedTag(tag)).toBe(false)
    expect(noteTags("alice", ordinary)).toEqual(Either.right([...ordinary, "source:bridge:alice"]))
  })

  it("folding is compatibility normalisation, case folding and dropping invisible characters", () => {
    expect(foldTag("ＳＯＵＲＣＥ：ＢＲＩＤＧＥ：Alice")).toBe("source:bridge:alice")
    expect(foldTag(`${ZWSP}a${ZWJ}g${SHY}ent:x`)).toBe("agent:x")
    expect(foldTag("\u017F")).toBe("s")
  })
})
