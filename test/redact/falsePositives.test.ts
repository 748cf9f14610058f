/**
 * False positives: ordinary code and prose must come back unchanged. The rate is masks per MB over
 * this repo's own `src/`, the Markdown of a few installed packages, generated UUIDs, git SHAs
 * and base64 image data URIs, and real Hermes events (`test/redact/hermesEvents.ts`); the test prints it and keeps it at 1 per MB or less.
 *
 * Left out: `src/domain/redact/` (the rules, whose comments show the shapes they mask) and
 * `src/hermes/sim/` (the simulator's deliberate fake secrets), like this test corpus.
 *
 * Every installed package's README is also scanned and every mask printed for review: those are
 * example credentials in documentation (`password = dbpassword`, `https://user:pass@…`), which the
 * contract masks, so they are reported, not counted as false positives.
 */
import fs from "node:fs"
import path from "node:path"
import { describe, expect, it } from "vitest"
import type { Finding } from "../../src/domain/redact/redact.ts"
import { makeRedaction } from "../../src/domain/redact/redact.ts"
import { chars, mulberry32 } from "./corpus.ts"
import { HERMES_EVENTS } from "./hermesEvents.ts"

const ROOT = path.resolve(import.meta.dirname, "../..")
const EXCLUDED = [path.join("src", "domain", "redact") + path.sep, path.join("src", "hermes", "sim") + path.sep]
/** "A few installed packages": the ones this product is built on, and the test tools. */
const PACKAGES = ["effect", "@modelcontextprotocol/sdk", "yaml", "fast-check", "typescript", "@effect/sql", "@effect/rpc", "@effect/vitest", "@effect/workflow"]

const r = makeRedaction([])

const sourceFiles = (dir: string): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name)
    return e.isDirectory() ? sourceFiles(p) : e.name.endsWith(".ts") ? [p] : []
  })

const readmes = (): Array<string> => {
  const nm = path.join(ROOT, "node_modules")
  const dirs = fs.readdirSync(nm).flatMap((d) => (d.startsWith("@") ? fs.readdirSync(path.join(nm, d)).map((s) => `${d}/${s}`) : [d]))
  return dirs.map((d) => path.join(nm, d, "README.md")).filter((f) => fs.existsSync(f))
}

/** UUIDs, git SHAs and base64 image data URIs in the lines they usually come in. */
const generated = (): string => {
  const rng = mulberry32(99)
  const hex = "0123456789abcdef"
  const lines: Array<string> = []
  for (let i = 0; i < 12000; i++) {
    const uuid = `${chars(rng, hex, 8)}-${chars(rng, hex, 4)}-4${chars(rng, hex, 3)}-a${chars(rng, hex, 3)}-${chars(rng, hex, 12)}`
    lines.push(`{"id": "${uuid}", "run_id": "run_${chars(rng, hex, 32)}", "session": "${uuid}"}`)
    lines.push(`commit ${chars(rng, hex, 40)}  Merge ${chars(rng, hex, 7)}..${chars(rng, hex, 7)}`)
  }
  for (let i = 0; i < 40; i++) {
    const data = Buffer.from(Array.from({ length: 9000 }, () => Math.floor(rng() * 256))).toString("base64")
    lines.push(`![screenshot ${i}](data:image/png;base64,${data})`, `<img src="data:image/jpeg;base64,${data}" alt="x">`)
  }
  // Real Hermes events (approvals with their `pattern_key`, tool events, usage), as stored and as
  // quoted in output, with fresh run ids.
  for (let i = 0; i < 2000; i++) {
    const e = { ...HERMES_EVENTS[i % HERMES_EVENTS.length]!, run_id: `run_${chars(rng, hex, 32)}` }
    lines.push(JSON.stringify(e), `data: ${JSON.stringify(e)}`)
  }
  return lines.join("\n")
}

interface Tally {
  bytes: number
  masks: Array<string>
}

const tally = (sources: ReadonlyArray<readonly [string, string]>): Tally => {
  const t: Tally = { bytes: 0, masks: [] }
  for (const [name, text] of sources) {
    t.bytes += Buffer.byteLength(text)
    for (const f of r.findings(text, false) as ReadonlyArray<Finding>) {
      const lineStart = text.lastIndexOf("\n", f.start) + 1
      t.masks.push(`${name}: ${f.kind}: ${text.slice(lineStart, lineStart + 120).split("\n")[0]}`)
    }
  }
  return t
}

const perMB = (t: Tally): number => t.masks.length / (t.bytes / 1e6)

describe("false positives", () => {
  it("keeps ordinary code and prose unchanged: at most 1 mask per MB", () => {
    const src = sourceFiles(path.join(ROOT, "src"))
      .filter((f) => !EXCLUDED.some((x) => path.relative(ROOT, f).startsWith(x)))
      .map((f) => [path.relative(ROOT, f), fs.readFileSync(f, "utf8")] as const)
    const docs = PACKAGES.map((p) => path.join(ROOT, "node_modules", p, "README.md"))
      .filter((f) => fs.existsSync(f))
      .map((f) => [path.relative(ROOT, f), fs.readFileSync(f, "utf8")] as const)
    const t = tally([...src, ...docs, ["generated ids and data URIs", generated()]])
    console.log(`false positives: ${t.masks.length} masks in ${(t.bytes / 1e6).toFixed(2)} MB = ${perMB(t).toFixed(2)} per MB`)
    for (const m of t.masks) console.log(`  ${m}`)
    expect(src.length).toBeGreaterThan(20)
    expect(docs.length).toBeGreaterThanOrEqual(5)
    expect(t.bytes).toBeGreaterThan(1e6)
    expect(perMB(t)).toBeLessThanOrEqual(1)
  })

  it("reports the masks in every installed package's README", () => {
    const files = readmes()
    const t = tally(files.map((f) => [path.relative(ROOT, f), fs.readFileSync(f, "utf8")] as const))
    console.log(`package READMEs: ${files.length} files, ${t.masks.length} masks in ${(t.bytes / 1e6).toFixed(2)} MB = ${perMB(t).toFixed(2)} per MB (example credentials, masked by design):`)
    for (const m of t.masks) console.log(`  ${m}`)
    expect(files.length).toBeGreaterThan(10)
  })
})

/**
 * Lines of installed packages' sources that the redactor masked before (effect's `dist`,
 * TypeScript's `lib.dom.d.ts`, yaml's `dist`), counted by `npm run bench`'s false positives per MB.
 */
describe("code of installed packages", () => {
  it.each([
    `const ClockSymbolKey = "effect/Clock";`,
    `const MemoMapTypeIdKey = "effect/Layer/MemoMap";`,
    `const STMSymbolKey = "effect/STM";`,
    `    readonly STENCIL_PASS_DEPTH_PASS: 0x0B96;`,
    `  // First pass: identify nodes to remove`,
    `                pair.srcToken = collItem;`,
    `    new <T extends WeakKey = WeakKey>(values?: readonly T[] | null): WeakSet<T>;`,
    `    type LocaleHourCycleKey = "h12" | "h23" | "h11" | "h24";`,
    `        const implicitKey = !keyProps.found;`,
    `        implicitKey: !explicitKey && (simpleKeys || !keyComment),`
  ])("%s", (line) => expect(r.text(line, false)).toBe(line))

  it("still masks random values under the same names", () => {
    for (const line of [`const DEPLOY_KEY = "aG7kP2xQ9mZ4";`, `  db_pass: Zq8rT5wLm2`, `pair.srcToken = "Zq8rT5wLm2vB";`]) {
      expect(r.text(line, false), line).not.toBe(line)
    }
  })
})
