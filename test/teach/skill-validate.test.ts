/**
 * Every push rule of the seed's "Skills" section (docs/REFERENCE.md):
 * for each, an input that just passes and one that just fails, and the rule order.
 */
import { describe, expect, it } from "vitest"
import { PUSH_RULES, skillPushProblem, type SkillPush } from "../../src/domain/skills/validate.ts"
import { REVIEWABLE_TEXT_MESSAGE } from "../../src/domain/skills/files.ts"

const noSecrets = () => null
const md = (name: string, description = "Does one useful thing.", body = "# Body\n") =>
  `---\nname: ${name}\ndescription: ${description}\n---\n${body}`
const push = (over: Partial<SkillPush> = {}): SkillPush => {
  const name = over.name ?? "my-skill"
  return { name, skillMd: over.skillMd ?? md(name), files: over.files ?? {} }
}
const problem = (p: SkillPush) => skillPushProblem(p, noSecrets)

describe("skill name", () => {
  it.each([
    ["a", null],
    ["a".repeat(64), null],
    ["web-search2", null],
    ["0x", null]
  ])("%s passes", (name, expected) => {
    expect(problem(push({ name }))).toBe(expected)
  })
  it.each([
    ["", "empty"],
    ["a".repeat(65), "at most 64"],
    ["My-skill", "lowercase"],
    ["my_skill", "lowercase"],
    ["-skill", "start with a hyphen"],
    ["skill-", "end with a hyphen"],
    ["my--skill", "two hyphens"],
    ["skill\u200Dx", "lowercase"]
  ])("%j fails", (name, words) => {
    expect(problem(push({ name, skillMd: md("x") }))).toContain(words)
  })
})

describe("frontmatter", () => {
  it("a minimal block passes", () => {
    expect(problem(push({ skillMd: "---\nname: my-skill\ndescription: x\n---\n" }))).toBeNull()
  })
  it("CRLF lines pass", () => {
    expect(problem(push({ skillMd: "---\r\nname: my-skill\r\ndescription: x\r\n---\r\nbody\r\n" }))).toBeNull()
  })
  it("no opening line fails", () => {
    expect(problem(push({ skillMd: "name: my-skill\ndescription: x\n" }))).toContain("must start with a frontmatter block")
  })
  it("a leading blank line fails", () => {
    expect(problem(push({ skillMd: `\n${md("my-skill")}` }))).toContain("must start with a frontmatter block")
  })
  it("no closing line fails", () => {
    expect(problem(push({ skillMd: "---\nname: my-skill\ndescription: x\n" }))).toContain("no closing")
  })
  it("YAML that cannot be read fails", () => {
    expect(problem(push({ skillMd: "---\nname: my-skill\ndescription: [x\n---\n" }))).toContain("not valid YAML")
  })
  it("duplicate keys fail", () => {
    expect(problem(push({ skillMd: "---\nname: my-skill\nname: my-skill\ndescription: x\n---\n" }))).toContain("not valid YAML")
  })
  it("a list instead of a mapping fails", () => {
    expect(problem(push({ skillMd: "---\n- name\n---\n" }))).toContain("mapping")
  })
  it("another name fails", () => {
    expect(problem(push({ skillMd: md("other-skill") }))).toContain("is not the skill name 'my-skill'")
  })
  it("a missing name fails", () => {
    expect(problem(push({ skillMd: "---\ndescription: x\n---\n" }))).toContain("must hold name: my-skill")
  })
  it("a blank description fails", () => {
    expect(problem(push({ skillMd: "---\nname: my-skill\ndescription: '   '\n---\n" }))).toContain("non-blank description")
  })
  it("a missing or non-string description fails", () => {
    expect(problem(push({ skillMd: "---\nname: my-skill\n---\n" }))).toContain("non-blank description")
    expect(problem(push({ skillMd: "---\nname: my-skill\ndescription: [a]\n---\n" }))).toContain("non-blank description")
  })
  it("a description of 1024 characters passes, 1025 fails (characters, not bytes)", () => {
    expect(problem(push({ skillMd: md("my-skill", "é".repeat(1024)) }))).toBeNull()
    expect(problem(push({ skillMd: md("my-skill", "é".repeat(1025)) }))).toContain("1025 characters")
  })
})

describe("data: URIs in SKILL.md", () => {
  const uri = (length: number) => `data:image/png;base64,${"A".repeat(length - "data:image/png;base64,".length)}`
  it("1024 characters (scheme included) pass", () => {
    expect(problem(push({ skillMd: md("my-skill", "x", `![i](${uri(1024)})\n`) }))).toBeNull()
  })
  it("1025 characters fail", () => {
    expect(problem(push({ skillMd: md("my-skill", "x", `![i](${uri(1025)})\n`) }))).toContain("data: URI of 1025 characters")
  })
  it("upper-case scheme counts too", () => {
    expect(problem(push({ skillMd: md("my-skill", "x", `${uri(1025).replace("data:", "DATA:")}\n`) }))).toContain("data: URI")
  })
  it("a metadata: key is not a URI", () => {
    expect(problem(push({ skillMd: `---\nname: my-skill\ndescription: x\nmetadata: {hermes: {category: ${"a".repeat(1100)}}}\n---\n` }))).toBeNull()
  })
})

describe("files", () => {
  const many = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}.md`, "x"]))
  it("16 files pass, 17 fail", () => {
    expect(problem(push({ files: many(16) }))).toBeNull()
    expect(problem(push({ files: many(17) }))).toContain("17 files; at most 16")
  })
  it.each(["notes.md", "run.sh", "a.b.c", "résumé.txt", "x"])("%j is a plain name", (f) => {
    expect(problem(push({ files: { [f]: "x" } }))).toBeNull()
  })
  it.each([
    ["", "empty"],
    ["a/b.md", "path separator"],
    ["a\\b.md", "path separator"],
    ["..", "'..'"],
    ["a..b", "'..'"],
    [".env", "starts with '.'"],
    ["SKILL.md", "skill_md"],
    ["skill.md", "skill_md"],
    ["a\u0000b", "NUL"]
  ])("%j is refused", (f, words) => {
    expect(problem(push({ files: { [f]: "x" } }))).toContain(words)
  })
  it("a name of 200 bytes of UTF-8 passes, 201 fails", () => {
    expect(problem(push({ files: { [`${"é".repeat(99)}ab`]: "x" } }))).toBeNull()
    expect(problem(push({ files: { [`${"é".repeat(100)}a`]: "x" } }))).toContain("201 bytes")
  })
})

describe("reviewable text", () => {
  const KiB = 1024
  const sized = (bytes: number) => {
    const head = md("my-skill")
    return head + "x".repeat(bytes - Buffer.byteLength(head))
  }
  it("SKILL.md of exactly 16 KiB passes, one byte more fails with the seed's message", () => {
    expect(problem(push({ skillMd: sized(16 * KiB) }))).toBeNull()
    const p = problem(push({ skillMd: sized(16 * KiB + 1) }))
    expect(p?.startsWith("bridge pushes are limited to reviewable text (SKILL.md ≤ 16 KiB, total ≤ 48 KiB)")).toBe(true)
  })
  it("a multi-byte character that crosses 16 KiB fails (bytes are counted)", () => {
    expect(problem(push({ skillMd: sized(16 * KiB - 1) + "é" }))).toContain(REVIEWABLE_TEXT_MESSAGE)
  })
  it("a whole push of exactly 48 KiB passes, one byte more fails", () => {
    const skillMd = sized(16 * KiB)
    const files = { "a.md": "x".repeat(16 * KiB), "b.md": "x".repeat(16 * KiB) }
    expect(problem(push({ skillMd, files }))).toBeNull()
    const p = problem(push({ skillMd, files: { ...files, "c.md": "x" } }))
    expect(p?.startsWith(REVIEWABLE_TEXT_MESSAGE)).toBe(true)
    expect(p).toContain("49153 bytes")
  })
  it("a NUL in a file fails", () => {
    expect(problem(push({ files: { "a.md": "x\u0000y" } }))).toBe(`${REVIEWABLE_TEXT_MESSAGE}: 'a.md' holds a NUL character`)
  })
  it("a lone surrogate (not valid UTF-8) fails; a surrogate pair passes", () => {
    expect(problem(push({ files: { "a.md": "x\uD83Dy" } }))).toBe(`${REVIEWABLE_TEXT_MESSAGE}: 'a.md' is not valid UTF-8`)
    expect(problem(push({ files: { "a.md": "x\uD83D\uDE00y" } }))).toBeNull()
  })
})

describe("characters the card would not show", () => {
  const inFile = (text: string) => problem(push({ files: { "notes.md": `before ${text} after\n` } }))
  const refused = "'notes.md' holds control, format or invisible characters"
  it.each([
    ["zero-width joiner inside a word", "jo\u200Diner"],
    ["zero-width space", "a\u200Bb"],
    ["RLO override", "\u202Etxt.exe"],
    ["bidi isolate", "\u2066x\u2069"],
    ["left-to-right mark", "a\u200Eb"],
    ["BOM", "\uFEFFx"],
    ["soft hyphen", "soft\u00ADhyphen"],
    ["tag characters", "flag\u{E0067}\u{E0062}"],
    ["U+2028", "line\u2028sep"],
    ["U+2029", "para\u2029sep"],
    ["a private-use character", "pua\uE000"],
    ["a supplementary private-use character", "pua\u{F0000}"],
    ["an unassigned code point", "un\u{40000}assigned"],
    ["a noncharacter", "non\uFFFF"],
    ["VS16 after a digit", "1\uFE0F\u20E3"],
    ["VS16 after a heart", "\u2764\uFE0F"],
    ["an ideographic variation selector", "\u845B\u{E0100}"],
    ["U+034F combining grapheme joiner", "a\u034Fb"],
    ["a C0 control", "bell\u0007"],
    ["escape", "\u001B[31mred"],
    ["DEL", "del\u007F"],
    ["a C1 control", "c1\u0085"],
    ["a ZWJ emoji sequence", "\u{1F468}\u200D\u{1F469}"]
  ])("%s is refused, naming the file", (_label, text) => {
    expect(inFile(text)).toContain(refused)
  })
  it.each([
    ["a plain emoji", "\u{1F600}"],
    ["a plain emoji with a skin tone", "\u{1F44D}\u{1F3FD}"],
    ["a regional-indicator flag", "\u{1F1E9}\u{1F1EA}"],
    ["tab, newline and carriage return", "a\tb\r\nc"],
    ["accented and CJK text", "café 漢字 Ελληνικά"],
    ["a no-break space", "a\u00A0b"],
    ["a combining accent", "e\u0301"]
  ])("%s passes", (_label, text) => {
    expect(inFile(text)).toBeNull()
  })
  it("the message says where the character is", () => {
    expect(problem(push({ files: { "notes.md": "ok\nsecond jo\u200Diner\n" } }))).toBe(
      "'notes.md' holds control, format or invisible characters (U+200D at line 2, column 10)"
    )
  })
  it("SKILL.md is checked too", () => {
    expect(problem(push({ skillMd: md("my-skill", "x", "a\u200Bb\n") }))).toContain("'SKILL.md' holds control, format or invisible characters")
  })
  it("a BOM before the frontmatter is named as a BOM, not as missing frontmatter", () => {
    expect(problem(push({ skillMd: `\uFEFF${md("my-skill")}` }))).toContain("U+FEFF")
  })
  it("a file name with an invisible character is refused and shown escaped", () => {
    expect(problem(push({ files: { "no\u200Dtes.md": "x" } }))).toBe(
      "the file name 'no\\u{200D}tes.md' holds control, format or invisible characters (U+200D at line 1, column 3)"
    )
  })
})

describe("secrets", () => {
  const flag = (file: string, text: string) => (text.includes("SECRET") ? `'${file}' holds secret-shaped text` : null)
  it("the secret check runs on SKILL.md then on each file by name, and its message is the answer", () => {
    expect(skillPushProblem(push({ files: { "b.md": "SECRET", "a.md": "SECRET" } }), flag)).toBe("'a.md' holds secret-shaped text")
    expect(skillPushProblem(push({ skillMd: md("my-skill", "x", "SECRET"), files: { "a.md": "SECRET" } }), flag)).toBe(
      "'SKILL.md' holds secret-shaped text"
    )
    expect(skillPushProblem(push({ files: { "a.md": "fine" } }), flag)).toBeNull()
  })
})

describe("rule order", () => {
  it("runs the rules in the documented order", () => {
    expect(PUSH_RULES.map((r) => r.id)).toEqual([
      "name", "file_count", "file_names", "file_name_characters", "reviewable_text", "characters", "frontmatter", "data_uri", "secrets"
    ])
  })
  it("reports only the first problem", () => {
    // Bad name, bad file name, oversized, invisible, bad frontmatter: the name is what is reported.
    const all: SkillPush = { name: "Bad", skillMd: "x".repeat(20000) + "\u200B", files: { ".env": "x" } }
    expect(problem(all)).toContain("lowercase")
    expect(problem({ ...all, name: "good" })).toContain("starts with '.'")
    expect(problem({ ...all, name: "good", files: {} })).toContain(REVIEWABLE_TEXT_MESSAGE)
    expect(problem({ ...all, name: "good", files: {}, skillMd: "x\u200B" })).toContain("invisible")
    expect(problem({ ...all, name: "good", files: {}, skillMd: "x" })).toContain("frontmatter")
  })
})
