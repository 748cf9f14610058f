/**
 * The import rule of docs/ARCHITECTURE.md: `src/` is in layers, and a module imports only from its own
 * layer or the layers below it. The domain depends on nothing of this repo but itself, and on no
 * package but `effect` and the pure ones listed here; the service folders depend on each other
 * without a cycle. The check reads the sources as text (static and dynamic imports, `export … from`).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"

const SRC = path.resolve(import.meta.dirname, "../../src")

/** Lower numbers are lower layers. A layer may import from itself and any lower one. */
export const LAYERS: Readonly<Record<string, number>> = {
  domain: 0,
  common: 1,
  config: 2,
  storage: 3,
  hermes: 4,
  request: 4,
  services: 5,
  edge: 6,
  daemon: 7,
  cli: 8,
  "main.ts": 9
}

/** What the domain may import from outside itself, and why. */
const DOMAIN_PACKAGES: Readonly<Record<string, string>> = {
  effect: "the language of the whole codebase",
  yaml: "parsing frontmatter and config.yaml is a pure function of a text",
  "node:crypto": "SHA-256 digests of texts (skill cards, request fingerprints, key digests); pure functions"
}

interface Import {
  readonly from: string
  readonly spec: string
  readonly line: number
}

const sourceFiles = (dir: string): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name)
    return e.isDirectory() ? sourceFiles(p) : p.endsWith(".ts") ? [p] : []
  })

const IMPORT = /(?:^|[\s;])(?:import|export)\s[^"'`]*?from\s*["']([^"']+)["']|(?:^|[\s;(])import\s*\(\s*["']([^"']+)["']\s*\)|^\s*import\s+["']([^"']+)["']/gm

const importsOf = (file: string, text = fs.readFileSync(file, "utf8")): Array<Import> => {
  const out: Array<Import> = []
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2] ?? m[3]!
    out.push({ from: file, spec, line: text.slice(0, m.index).split("\n").length })
  }
  return out
}

/** `domain`, `services/runs`, `main.ts`…: the top folder, and for services its service folder. */
const areaOf = (file: string): { readonly layer: string; readonly unit: string } => {
  const parts = path.relative(SRC, file).split(path.sep)
  const layer = parts[0]!
  return { layer, unit: layer === "services" && parts.length > 2 ? `services/${parts[1]}` : layer }
}

const upward = (imports: ReadonlyArray<Import>) =>
  imports.filter((i) => i.spec.startsWith(".")).filter((i) => {
    const from = areaOf(i.from).layer
    const to = areaOf(path.resolve(path.dirname(i.from), i.spec)).layer
    return LAYERS[to]! > LAYERS[from]!
  })

const files = sourceFiles(SRC)
const all = files.flatMap((f) => importsOf(f))
const relative = all.filter((i) => i.spec.startsWith("."))
const where = (i: Import) => `${path.relative(SRC, i.from)}:${i.line} imports ${i.spec}`

/**
 * The cycles of the file graph (one per strongly connected component, named from its first file in
 * path order), each as the files of one loop through it.
 */
const fileCycles = (imports: ReadonlyArray<Import>): Array<string> => {
  const graph = new Map<string, Set<string>>()
  for (const i of imports) {
    const from = path.relative(SRC, i.from).split(path.sep).join("/")
    const to = path.relative(SRC, path.resolve(path.dirname(i.from), i.spec)).split(path.sep).join("/")
    graph.set(from, (graph.get(from) ?? new Set()).add(to))
  }
  // Tarjan's strongly connected components.
  let index = 0
  const idx = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: Array<string> = []
  const onStack = new Set<string>()
  const components: Array<Array<string>> = []
  const connect = (v: string) => {
    idx.set(v, index)
    low.set(v, index++)
    stack.push(v)
    onStack.add(v)
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        connect(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!))
    }
    if (low.get(v) === idx.get(v)) {
      const component: Array<string> = []
      for (let w = stack.pop()!; ; w = stack.pop()!) {
        onStack.delete(w)
        component.push(w)
        if (w === v) break
      }
      if (component.length > 1) components.push(component)
    }
  }
  for (const v of [...graph.keys()].sort()) if (!idx.has(v)) connect(v)
  return components.map((component) => {
    const members = new Set(component)
    const start = [...component].sort()[0]!
    // One loop back to the start, inside the component (breadth first: the shortest).
    const previous = new Map<string, string>()
    const queue = [start]
    while (queue.length > 0) {
      const v = queue.shift()!
      for (const w of [...(graph.get(v) ?? [])].sort()) {
        if (!members.has(w) || previous.has(w)) continue
        previous.set(w, v)
        if (w === start) queue.length = 0
        else queue.push(w)
      }
    }
    const loop: Array<string> = []
    for (let v = previous.get(start)!; v !== start; v = previous.get(v)!) loop.unshift(v)
    return [start, ...loop, start].join(" → ")
  }).sort()
}

describe("the import rule", () => {
  it("knows every top-level folder of src/", () => {
    const tops = new Set(files.map((f) => areaOf(f).layer))
    expect([...tops].filter((t) => !(t in LAYERS))).toEqual([])
  })

  it("has no import that runs upward", () => {
    expect(upward(all).map(where)).toEqual([])
  })

  it("keeps the domain free of every package but the listed pure ones", () => {
    const outside = all.filter((i) => areaOf(i.from).layer === "domain" && !i.spec.startsWith("."))
      .filter((i) => !(i.spec in DOMAIN_PACKAGES) && !i.spec.startsWith("effect/"))
    expect(outside.map(where)).toEqual([])
  })

  it("lets the service folders depend on each other without a cycle", () => {
    const graph = new Map<string, Set<string>>()
    for (const i of relative) {
      const from = areaOf(i.from).unit
      const to = areaOf(path.resolve(path.dirname(i.from), i.spec)).unit
      if (from === to || !from.startsWith("services/") || !to.startsWith("services/")) continue
      graph.set(from, (graph.get(from) ?? new Set()).add(to))
    }
    const cycles: Array<string> = []
    const visit = (node: string, trail: ReadonlyArray<string>) => {
      if (trail.includes(node)) {
        cycles.push([...trail.slice(trail.indexOf(node)), node].join(" → "))
        return
      }
      for (const next of graph.get(node) ?? []) visit(next, [...trail, node])
    }
    for (const node of graph.keys()) visit(node, [])
    expect(cycles).toEqual([])
  })

  it("has no cycle between files, type imports included (a type shared by two files lives in a leaf)", () => {
    expect(fileCycles(relative)).toEqual([])
  })

  it("finds a cycle between files, through a type import too (the check can fail)", () => {
    const a = path.join(SRC, "edge", "a.ts")
    const b = path.join(SRC, "edge", "b.ts")
    const c = path.join(SRC, "edge", "c.ts")
    const probe = [...importsOf(a, 'import { b } from "./b.ts"'), ...importsOf(b, 'import type { C } from "./c.ts"'), ...importsOf(c, 'import type { A } from "./a.ts"')]
    expect(fileCycles(probe)).toEqual(["edge/a.ts → edge/b.ts → edge/c.ts → edge/a.ts"])
    expect(fileCycles(probe.slice(0, 2))).toEqual([])
  })

  it("reads every form of import, and flags an upward one (the check can fail)", () => {
    const probe = path.join(SRC, "domain", "probe.ts")
    const text = [
      'import { Runs } from "../services/runs/Runs.ts"',
      'import type { X } from "../edge/http/app.ts"',
      'export { y } from "../daemon/Daemon.ts"',
      'const m = await import("../cli/args.ts")',
      'import "../storage/Db.ts"',
      'import { ok } from "./runs/view.ts"'
    ].join("\n")
    const found = importsOf(probe, text)
    expect(found.map((i) => i.spec)).toEqual([
      "../services/runs/Runs.ts", "../edge/http/app.ts", "../daemon/Daemon.ts", "../cli/args.ts", "../storage/Db.ts", "./runs/view.ts"
    ])
    expect(upward(found).map((i) => i.spec)).toEqual(found.slice(0, 5).map((i) => i.spec))
  })
})
