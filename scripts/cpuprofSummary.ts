/**
 * A `.cpuprofile` (node --cpu-prof) as text: the top frames by self time and by inclusive time, and
 * self time per package, so a profile can be read (and quoted) without a flame-graph viewer.
 * Inclusive time counts a frame once per sample even when it recurses.
 *
 * Usage: npx tsx scripts/cpuprofSummary.ts FILE.cpuprofile [TOP=30]
 */
import * as fs from "node:fs"
import { SourceMap } from "node:module"

interface Node {
  readonly id: number
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number; readonly columnNumber?: number }
  readonly children?: ReadonlyArray<number>
}
interface Profile {
  readonly nodes: ReadonlyArray<Node>
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

const file = process.argv[2]
if (file === undefined) throw new Error("usage: cpuprofSummary.ts FILE.cpuprofile [TOP]")
const TOP = Number(process.argv[3] ?? 30)
const prof = JSON.parse(fs.readFileSync(file, "utf8")) as Profile

const byId = new Map(prof.nodes.map((n) => [n.id, n]))
const parent = new Map<number, number>()
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id)

const shortUrl = (url: string) => {
  const nm = url.lastIndexOf("node_modules/")
  if (nm >= 0) return url.slice(nm + "node_modules/".length)
  const src = url.indexOf("/src/")
  return src >= 0 ? url.slice(src + 1) : url.replace(/^file:\/\//, "")
}
/**
 * A minified bundle (scripts/build.ts) has few lines: a frame of one with its source map beside it
 * (`<bundle>.map`) is named by the original file and line instead.
 */
const sourceMaps = new Map<string, SourceMap | null>()
const original = (n: Node): { readonly url: string; readonly line: number } | undefined => {
  const { url, lineNumber, columnNumber } = n.callFrame
  if (!url.startsWith("file://") || !url.endsWith(".mjs") || columnNumber === undefined) return undefined
  let map = sourceMaps.get(url)
  if (map === undefined) {
    try {
      map = new SourceMap(JSON.parse(fs.readFileSync(new URL(`${url}.map`), "utf8")))
    } catch {
      map = null
    }
    sourceMaps.set(url, map)
  }
  if (map === null) return undefined
  const entry = map.findEntry(lineNumber, columnNumber) as { originalSource?: string; originalLine?: number }
  return entry.originalSource === undefined ? undefined : { url: entry.originalSource, line: entry.originalLine ?? 0 }
}
const label = (n: Node) => {
  const at = original(n) ?? { url: n.callFrame.url, line: n.callFrame.lineNumber }
  return `${n.callFrame.functionName || "(anonymous)"} ${shortUrl(at.url)}:${at.line + 1}`
}
/**
 * An esbuild bundle marks each module's start with a `// path` comment line: a frame of a bundle
 * belongs to the module whose mark precedes its line (so a profile of the bundled daemon still
 * splits by package).
 */
const bundleMarks = new Map<string, Array<{ line: number; path: string }>>()
const moduleOf = (url: string, line: number): string => {
  let marks = bundleMarks.get(url)
  if (marks === undefined) {
    marks = []
    try {
      const lines = fs.readFileSync(new URL(url), "utf8").split("\n")
      lines.forEach((l, i) => {
        if (/^\/\/ [^ ]+\.(m?[jt]s|json)$/.test(l)) marks!.push({ line: i, path: l.slice(3) })
      })
    } catch {
      // Not readable here: the frame keeps the bundle's name.
    }
    bundleMarks.set(url, marks)
  }
  let lo = 0
  let hi = marks.length - 1
  let found: string | undefined
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    if (marks[mid]!.line <= line) {
      found = marks[mid]!.path
      lo = mid + 1
    } else hi = mid - 1
  }
  return found ?? url
}
const pkg = (n: Node) => {
  let url = n.callFrame.url
  if (url === "") return n.callFrame.functionName.startsWith("(") ? n.callFrame.functionName : "(native)"
  if (url.startsWith("file://") && url.endsWith(".mjs")) url = original(n)?.url ?? moduleOf(url, n.callFrame.lineNumber)
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)
  if (m !== null) return m[1]!
  if (url.startsWith("node:")) return "node:*"
  return url.includes("/src/") || url.startsWith("src/") ? "bridge src/" : shortUrl(url)
}

const self = new Map<string, number>()
const incl = new Map<string, number>()
const perPkg = new Map<string, number>()
let total = 0
for (let i = 0; i < prof.samples.length; i++) {
  const dt = (prof.timeDeltas[i] ?? 0) / 1000
  total += dt
  const leaf = byId.get(prof.samples[i]!)!
  self.set(label(leaf), (self.get(label(leaf)) ?? 0) + dt)
  perPkg.set(pkg(leaf), (perPkg.get(pkg(leaf)) ?? 0) + dt)
  const seen = new Set<string>()
  for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id)) {
    const l = label(byId.get(id)!)
    if (seen.has(l)) continue
    seen.add(l)
    incl.set(l, (incl.get(l) ?? 0) + dt)
  }
}
const idle = self.get("(idle) :0") ?? 0
const busy = total - idle
const show = (title: string, m: Map<string, number>) => {
  console.log(`\n${title}`)
  for (const [k, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(`${v.toFixed(0).padStart(7)} ms ${((100 * v) / busy).toFixed(1).padStart(5)}%  ${k}`)
}
console.log(`${file}: ${total.toFixed(0)} ms sampled, ${busy.toFixed(0)} ms busy (percentages of busy)`)
show("self time by package", perPkg)
show("self time", self)
show("inclusive time", incl)

// CALLERS=regex: where the frames matching it are called from (their time including callees, by the
// first three ancestors outside the match).
const callersOf = process.env["CALLERS"]
if (callersOf !== undefined) {
  const re = new RegExp(callersOf)
  const totals = new Map<number, number>()
  for (let i = 0; i < prof.samples.length; i++) {
    const dt = (prof.timeDeltas[i] ?? 0) / 1000
    for (let id: number | undefined = prof.samples[i]; id !== undefined; id = parent.get(id)) totals.set(id, (totals.get(id) ?? 0) + dt)
  }
  const chains = new Map<string, number>()
  for (const n of prof.nodes) {
    if (!re.test(label(n))) continue
    const p = parent.get(n.id)
    if (p !== undefined && re.test(label(byId.get(p)!))) continue
    const chain: Array<string> = []
    for (let id = p; id !== undefined && chain.length < 3; id = parent.get(id)) chain.push(label(byId.get(id)!))
    const key = `${label(n)}  <=  ${chain.join("  <=  ")}`
    chains.set(key, (chains.get(key) ?? 0) + (totals.get(n.id) ?? 0))
  }
  show(`callers of /${callersOf}/ (time including callees)`, chains)
}
