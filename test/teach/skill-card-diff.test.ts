import { describe, expect, it } from "vitest"
import { cardContents, cardIsIntact, makeSkillCard, sha256Hex, skillDigest } from "../../src/domain/skills/card.ts"
import { lineDiff, skillDiff, unifiedDiff } from "../../src/domain/skills/diff.ts"

describe("skill card", () => {
  const skillMd = "---\nname: s\ndescription: d\n---\nbody é\n"
  const card = makeSkillCard({ name: "s", skillMd, files: { "z.md": "zz", "a.sh": "echo 1\n" } })

  it("shows the whole SKILL.md, never cut, and every file as {size, sha256, content}", () => {
    expect(card.preview).toBe(skillMd)
    expect(card.preview_truncated).toBe(false)
    expect(Object.keys(card.files)).toEqual(["a.sh", "z.md"])
    expect(card.files["a.sh"]).toEqual({ size: 7, sha256: sha256Hex("echo 1\n"), content: "echo 1\n" })
    expect(card.bytes).toBe(Buffer.byteLength(skillMd) + 7 + 2)
  })
  it("the digest is the sha256 of a sha256sum-style manifest", () => {
    const manifest = [
      `${sha256Hex("---\nname: s\ndescription: d\n---\nbody é\n")}  SKILL.md\n`,
      `${sha256Hex("echo 1\n")}  a.sh\n`,
      `${sha256Hex("zz")}  z.md\n`
    ].sort((a, b) => (a.slice(66) < b.slice(66) ? -1 : 1)).join("")
    expect(card.digest).toBe(sha256Hex(manifest))
  })
  it("the digest changes with any content or name", () => {
    expect(skillDigest(skillMd, { "a.sh": "echo 1\n", "z.md": "zz" })).toBe(card.digest)
    expect(skillDigest(skillMd, { "a.sh": "echo 2\n", "z.md": "zz" })).not.toBe(card.digest)
    expect(skillDigest(skillMd, { "b.sh": "echo 1\n", "z.md": "zz" })).not.toBe(card.digest)
  })
  it("cardContents gives back exactly what was pushed; an altered card is not intact", () => {
    expect(cardContents(card)).toEqual({ skillMd, files: { "a.sh": "echo 1\n", "z.md": "zz" } })
    expect(cardIsIntact(card)).toBe(true)
    expect(cardIsIntact({ ...card, preview: `${skillMd}x` })).toBe(false)
    expect(cardIsIntact({ ...card, files: { ...card.files, "z.md": { size: 2, sha256: card.files["z.md"]!.sha256, content: "zZ" } } })).toBe(false)
  })
})

describe("line diff", () => {
  it("keeps equal lines and marks the change", () => {
    expect(lineDiff("a\nb\nc\n", "a\nB\nc\n")).toEqual([
      { op: "equal", text: "a" },
      { op: "remove", text: "b" },
      { op: "add", text: "B" },
      { op: "equal", text: "c" }
    ])
  })
  it("finds the longest common subsequence in the middle", () => {
    const d = lineDiff("x\n1\n2\n3\n4\ny\n", "x\n1\n3\n5\n4\ny\n")
    expect(d.filter((l) => l.op !== "equal")).toEqual([{ op: "remove", text: "2" }, { op: "add", text: "5" }])
  })
  it("empty before is all added; empty after is all removed", () => {
    expect(lineDiff("", "a\nb")).toEqual([{ op: "add", text: "a" }, { op: "add", text: "b" }])
    expect(lineDiff("a\n", "")).toEqual([{ op: "remove", text: "a" }])
  })
  it("unified diff has headers and a hunk with context", () => {
    const before = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join("\n")
    const after = before.replace("line 10", "line ten")
    expect(unifiedDiff(before, after, { from: "a", to: "b" })).toBe(
      ["--- a", "+++ b", "@@ -7,7 +7,7 @@", " line 7", " line 8", " line 9", "-line 10", "+line ten", " line 11", " line 12", " line 13", ""].join("\n")
    )
    expect(unifiedDiff(before, before, { from: "a", to: "b" })).toBe("")
  })
  it("two distant changes make two hunks", () => {
    const before = Array.from({ length: 30 }, (_, i) => `l${i}`).join("\n")
    const after = before.replace("l2\n", "L2\n").replace("l25", "L25")
    expect(unifiedDiff(before, after, { from: "a", to: "b" }).match(/^@@/gm)).toHaveLength(2)
  })
})

describe("skill diff against the installed version", () => {
  it("names added, removed, changed and unchanged files, SKILL.md first", () => {
    const d = skillDiff(
      { skillMd: "new\n", files: { "keep.md": "k", "add.md": "a", "edit.md": "2" } },
      { skillMd: "old\n", files: { "keep.md": "k", "gone.md": "g", "edit.md": "1" }, binaryFiles: ["img.png"] }
    )
    expect(d.map((f) => [f.file, f.change])).toEqual([
      ["SKILL.md", "changed"], ["add.md", "added"], ["edit.md", "changed"], ["gone.md", "removed"], ["img.png", "removed"], ["keep.md", "unchanged"]
    ])
    expect(d[0]?.diff).toContain("-old\n+new")
    expect(d.find((f) => f.file === "img.png")?.diff).toBeNull()
  })
  it("nothing installed: every file is added", () => {
    expect(skillDiff({ skillMd: "x", files: {} }, null).map((f) => f.change)).toEqual(["added"])
  })
  it("a delete (nothing proposed): every installed file is removed", () => {
    expect(skillDiff(null, { skillMd: "x", files: { "a.md": "a" }, binaryFiles: [] }).map((f) => f.change)).toEqual(["removed", "removed"])
  })
})
