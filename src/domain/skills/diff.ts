/**
 * Line diffs for the operator: a skill card against the installed version (the inbox page and
 * `agent-bridge inbox show`). Pure; common leading and trailing lines are set aside first, and the
 * middle is an LCS diff while it stays small, else shown as removed-then-added.
 */
import { SKILL_MD } from "./limits.ts"

export type DiffOp = "equal" | "add" | "remove"
export interface DiffLine {
  readonly op: DiffOp
  readonly text: string
}

/** Beyond this many LCS cells the middle is shown as a whole replacement (≈16 MB of table). */
const MAX_CELLS = 4_000_000

const splitLines = (s: string): ReadonlyArray<string> => (s === "" ? [] : s.replace(/\r?\n$/, "").split(/\r?\n/))

const middleDiff = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): Array<DiffLine> => {
  const n = a.length
  const m = b.length
  if (n === 0 || m === 0 || (n + 1) * (m + 1) > MAX_CELLS) {
    return [...a.map((text) => ({ op: "remove" as const, text })), ...b.map((text) => ({ op: "add" as const, text }))]
  }
  // lcs[i][j] = LCS length of a[i..] and b[j..], flattened row-major.
  const w = m + 1
  const lcs = new Uint32Array((n + 1) * w)
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * w + j] = a[i] === b[j] ? (lcs[(i + 1) * w + j + 1] ?? 0) + 1 : Math.max(lcs[(i + 1) * w + j] ?? 0, lcs[i * w + j + 1] ?? 0)
    }
  }
  const out: Array<DiffLine> = []
  let i = 0
  let j = 0
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      out.push({ op: "equal", text: a[i++] ?? "" })
      j++
    } else if ((lcs[(i + 1) * w + j] ?? 0) >= (lcs[i * w + j + 1] ?? 0)) {
      out.push({ op: "remove", text: a[i++] ?? "" })
    } else {
      out.push({ op: "add", text: b[j++] ?? "" })
    }
  }
  while (i < n) out.push({ op: "remove", text: a[i++] ?? "" })
  while (j < m) out.push({ op: "add", text: b[j++] ?? "" })
  return out
}

/** The line diff turning `before` into `after`. */
export const lineDiff = (before: string, after: string): ReadonlyArray<DiffLine> => {
  const a = splitLines(before)
  const b = splitLines(after)
  let start = 0
  while (start < a.length && start < b.length && a[start] === b[start]) start++
  let endA = a.length
  let endB = b.length
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--
    endB--
  }
  const equal = (lines: ReadonlyArray<string>): Array<DiffLine> => lines.map((text) => ({ op: "equal", text }))
  return [...equal(a.slice(0, start)), ...middleDiff(a.slice(start, endA), b.slice(start, endB)), ...equal(a.slice(endA))]
}

/** A unified-diff text (`---`/`+++` headers, `@@` hunks with `context` lines around each change). */
export const unifiedDiff = (before: string, after: string, labels: { readonly from: string; readonly to: string }, context = 3): string => {
  const lines = lineDiff(before, after)
  if (lines.every((l) => l.op === "equal")) return ""
  const out = [`--- ${labels.from}`, `+++ ${labels.to}`]
  // Positions (1-based) in before/after at each diff line, for hunk headers.
  const posA: Array<number> = []
  const posB: Array<number> = []
  let na = 1
  let nb = 1
  for (const l of lines) {
    posA.push(na)
    posB.push(nb)
    if (l.op !== "add") na++
    if (l.op !== "remove") nb++
  }
  let k = 0
  while (k < lines.length) {
    if (lines[k]?.op === "equal") {
      k++
      continue
    }
    const from = Math.max(0, k - context)
    let to = k
    // Extend the hunk while the next change is within 2×context equal lines.
    for (let q = k; q < lines.length; q++) {
      if (lines[q]?.op !== "equal") to = q
      else if (q - to > 2 * context) break
    }
    const end = Math.min(lines.length, to + context + 1)
    const hunk = lines.slice(from, end)
    const countA = hunk.filter((l) => l.op !== "add").length
    const countB = hunk.filter((l) => l.op !== "remove").length
    out.push(`@@ -${countA === 0 ? (posA[from] ?? 1) - 1 : posA[from]},${countA} +${countB === 0 ? (posB[from] ?? 1) - 1 : posB[from]},${countB} @@`)
    for (const l of hunk) out.push(`${l.op === "equal" ? " " : l.op === "add" ? "+" : "-"}${l.text}`)
    k = end
  }
  return `${out.join("\n")}\n`
}

export type FileChange = "added" | "removed" | "changed" | "unchanged"

export interface FileDiff {
  readonly file: string
  readonly change: FileChange
  /** Unified diff text ("" when unchanged); null for an installed file that is not text. */
  readonly diff: string | null
}

/** An installed skill as the diff sees it: text files by name, and names of files that are not text. */
export interface InstalledSkill {
  readonly skillMd: string
  readonly files: Readonly<Record<string, string>>
  readonly binaryFiles: ReadonlyArray<string>
}

/**
 * Per-file diff of a proposed skill (SKILL.md and files) against the installed one (`null`: nothing
 * installed). Every installed file the proposal lacks is `removed`: a put replaces the whole skill.
 */
export const skillDiff = (
  proposed: { readonly skillMd: string; readonly files: Readonly<Record<string, string>> } | null,
  installed: InstalledSkill | null
): ReadonlyArray<FileDiff> => {
  const next = proposed === null ? new Map<string, string>() : new Map([[SKILL_MD, proposed.skillMd], ...Object.entries(proposed.files)])
  const prev = installed === null ? new Map<string, string>() : new Map([[SKILL_MD, installed.skillMd], ...Object.entries(installed.files)])
  const binary = new Set(installed?.binaryFiles ?? [])
  const names = [...new Set([...next.keys(), ...prev.keys(), ...binary])].sort((a, b) =>
    a === SKILL_MD ? -1 : b === SKILL_MD ? 1 : a < b ? -1 : a > b ? 1 : 0
  )
  return names.map((file): FileDiff => {
    const after = next.get(file)
    const before = prev.get(file)
    const labels = { from: `installed/${file}`, to: `proposed/${file}` }
    if (binary.has(file)) return { file, change: after === undefined ? "removed" : "changed", diff: null }
    if (before === undefined) return { file, change: "added", diff: unifiedDiff("", after ?? "", labels) }
    if (after === undefined) return { file, change: "removed", diff: unifiedDiff(before, "", labels) }
    return before === after
      ? { file, change: "unchanged", diff: "" }
      : { file, change: "changed", diff: unifiedDiff(before, after, labels) }
  })
}
