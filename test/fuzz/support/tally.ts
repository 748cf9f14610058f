/** Counts of fuzz outcomes per tool, the problems found (first few kept verbatim), and a printout. */
import type { FuzzCase } from "./cases.ts"
import type { Verdict } from "./verdict.ts"

/** A tool name as the fuzzer sent it, made printable and short. */
const shown = (name: string) => {
  const printable = JSON.stringify(name).slice(1, -1)
  return printable.length > 22 ? `${printable.slice(0, 21)}…` : printable
}

export interface Problem {
  readonly tool: string
  readonly family: string
  readonly args: string
  readonly problem: string
}

export class Tally {
  readonly perTool = new Map<string, Map<string, number>>()
  readonly problems: Array<Problem> = []
  /** Wall time spent per row (tool), for spotting slow paths. */
  readonly millis = new Map<string, number>()
  total = 0

  time(row: string, ms: number) {
    this.millis.set(row, (this.millis.get(row) ?? 0) + ms)
  }

  add(c: FuzzCase, v: Verdict) {
    this.total += 1
    const rowKey = c.family === "unknown" ? "(unknown tool names)" : c.tool
    const row = this.perTool.get(rowKey) ?? new Map<string, number>()
    this.perTool.set(rowKey, row)
    const key = v.problem === undefined ? v.outcome : "PROBLEM"
    row.set(key, (row.get(key) ?? 0) + 1)
    if (v.problem !== undefined) {
      this.problems.push({ tool: c.tool, family: c.family, args: (c.args ?? "(none)").slice(0, 300), problem: v.problem })
    }
  }

  /** `outcome → count` over every tool. */
  outcomes(): Map<string, number> {
    const all = new Map<string, number>()
    for (const row of this.perTool.values()) for (const [k, n] of row) all.set(k, (all.get(k) ?? 0) + n)
    return all
  }

  count(outcomePrefix: string): number {
    let n = 0
    for (const [k, v] of this.outcomes()) if (k.startsWith(outcomePrefix)) n += v
    return n
  }

  report(title: string): string {
    const lines = [`${title}: ${this.total} inputs, ${this.problems.length} problems`]
    for (const [tool, row] of this.perTool) {
      const n = [...row.values()].reduce((a, b) => a + b, 0)
      const parts = [...row.entries()].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`)
      const ms = this.millis.get(tool)
      lines.push(`  ${shown(tool).padEnd(22)} ${String(n).padStart(5)} ${ms === undefined ? "" : `${(ms / 1000).toFixed(1).padStart(5)} s`}  ${parts.join(", ")}`)
    }
    const totals = [...this.outcomes().entries()].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`)
    lines.push(`  ${"all".padEnd(22)} ${String(this.total).padStart(5)}  ${totals.join(", ")}`)
    for (const p of this.problems.slice(0, 10)) lines.push(`  ! ${p.tool} [${p.family}] ${p.problem}\n      args: ${p.args}`)
    return lines.join("\n")
  }
}
