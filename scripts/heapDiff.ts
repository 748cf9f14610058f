/**
 * What a process holds per live run, from two V8 heap snapshots (`.heapsnapshot`, as written by
 * `node --heapsnapshot-signal=SIGUSR2`): the objects grouped as the browser's devtools group them
 * (an object by its constructor, a closure by its function's name, the rest by kind), the second
 * snapshot's count and shallow size less the first's, divided by the runs that went live between
 * them. Shallow sizes: what each object itself takes, not what it keeps alive, so the rows add up to
 * the heap's growth.
 *
 *   node --max-old-space-size=8192 --import tsx scripts/heapDiff.ts BEFORE AFTER RUNS [TOP=30]
 *
 * bench-scale's `--heap-snapshots` runs it on the snapshots it took (before any run, all parked).
 */
import * as fs from "node:fs"

interface Snapshot {
  readonly snapshot: { readonly meta: { readonly node_fields: ReadonlyArray<string>; readonly node_types: ReadonlyArray<ReadonlyArray<string> | string> } }
  readonly nodes: ReadonlyArray<number>
  readonly strings: ReadonlyArray<string>
}

export interface Group { count: number; bytes: number }

/** The snapshot's objects as groups: name → count and shallow bytes. */
export const groups = (file: string): Map<string, Group> => {
  const snap = JSON.parse(fs.readFileSync(file, "utf8")) as Snapshot
  const fields = snap.snapshot.meta.node_fields
  const stride = fields.length
  const [typeAt, nameAt, sizeAt] = [fields.indexOf("type"), fields.indexOf("name"), fields.indexOf("self_size")]
  const types = snap.snapshot.meta.node_types[0] as ReadonlyArray<string>
  const out = new Map<string, Group>()
  for (let i = 0; i < snap.nodes.length; i += stride) {
    const type = types[snap.nodes[i + typeAt]!] ?? "?"
    const name = snap.strings[snap.nodes[i + nameAt]!] ?? ""
    const key = type === "object" ? name : type === "closure" ? `(closure) ${name || "anonymous"}` : `(${type})`
    const g = out.get(key) ?? { count: 0, bytes: 0 }
    g.count += 1
    g.bytes += snap.nodes[i + sizeAt]!
    out.set(key, g)
  }
  return out
}

/** The rows of AFTER − BEFORE per run, largest first. */
export const perRun = (before: Map<string, Group>, after: Map<string, Group>, runs: number) => {
  const rows: Array<{ readonly name: string; readonly count: number; readonly bytes: number }> = []
  for (const [name, a] of after) {
    const b = before.get(name) ?? { count: 0, bytes: 0 }
    rows.push({ name, count: (a.count - b.count) / runs, bytes: (a.bytes - b.bytes) / runs })
  }
  return rows.sort((x, y) => y.bytes - x.bytes)
}

export const printPerRun = (beforeFile: string, afterFile: string, runs: number, top = 30) => {
  const rows = perRun(groups(beforeFile), groups(afterFile), runs)
  const total = rows.reduce((s, r) => s + r.bytes, 0)
  console.log(`heap growth per live run: ${(total / 1024).toFixed(1)} KiB of shallow size over ${runs} runs; the largest groups:`)
  console.log("  KiB/run   objects/run  group")
  for (const r of rows.slice(0, top)) {
    console.log(`  ${(r.bytes / 1024).toFixed(2).padStart(7)}   ${r.count.toFixed(1).padStart(11)}  ${r.name.slice(0, 90)}`)
  }
}

if (process.argv[1]?.endsWith("heapDiff.ts")) {
  const [before, after, runs, top] = process.argv.slice(2)
  if (before === undefined || after === undefined || runs === undefined) {
    console.error("usage: heapDiff.ts BEFORE.heapsnapshot AFTER.heapsnapshot RUNS [TOP]")
    process.exit(2)
  }
  printPerRun(before, after, Number(runs), top === undefined ? 30 : Number(top))
}
