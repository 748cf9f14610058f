/**
 * The recipes of docs/ARCHITECTURE.md ("Common changes, and the files they touch") name the files a
 * change touches; a recipe that names a file since moved or renamed sends the next person to the
 * wrong place. Every repo path the section names in backticks (`src/…`, `test/…`, `docs/…`,
 * `scripts/…`), and every doc it names in plain text (docs/REFERENCE.md), exists as it is written; every other file or folder name it gives in backticks
 * (`index.ts`, `memory-tools/`, `services/quotas/ClientQuotas.ts`) is the end of a path under
 * `src/` or `test/`; every constant it names (`CLIENT_QUOTA_DEFAULTS`) is declared under `src/` or
 * `test/`; every `npm run X` (and `npm test`) is a script of package.json.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"

const ROOT = path.resolve(import.meta.dirname, "../..")
const SKIP = new Set(["node_modules", ".git", ".cache", "dist", "test-artifacts"])
const HEADING = "## Common changes, and the files they touch"

/** Every file and folder under `dir`, as paths from the root (folders end with `/`). */
const entries = (dir: string, rel: string): Array<string> =>
  fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    if (SKIP.has(e.name)) return []
    const r = `${rel}/${e.name}`
    return e.isDirectory() ? [`${r}/`, ...entries(path.join(dir, e.name), r)] : [r]
  })

/** The section of `doc` under `heading`, up to the next `## ` heading. */
export const sectionOf = (doc: string, heading: string): string => {
  const start = doc.indexOf(`\n${heading}\n`)
  if (start < 0) return ""
  const end = doc.indexOf("\n## ", start + heading.length + 1)
  return doc.slice(start, end < 0 ? undefined : end)
}

const ROOTED = /^(?:src|test|docs|scripts)\/[\w./-]*$/
/** A file name with its extension, or a folder written with its slash, with no placeholder in it. */
const NAME = /^[\w.-]+(?:\/[\w.-]+)*(?:\.(?:ts|js|mjs|json|md|sh|yaml)|\/)$/
const CONSTANT = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/

export interface Named {
  readonly paths: ReadonlyArray<string>
  readonly names: ReadonlyArray<string>
  readonly constants: ReadonlyArray<string>
  readonly scripts: ReadonlyArray<string>
}

/** What a text names: rooted paths, other file names, constants (all in backticks), npm scripts. */
export const namedIn = (text: string): Named => {
  const ticked = [...new Set([...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!))]
  const scripts = [...text.matchAll(/\bnpm (?:run ([\w:-]+)|(test|start)\b)/g)].map((m) => m[1] ?? m[2]!)
  // The docs a recipe sends to (docs/REFERENCE.md's tables) are often named in plain text.
  const docs = [...text.matchAll(/(?<![\w/`.-])(docs\/[\w.-]+\.md|README\.md)(?![\w/-])/g)].map((m) => m[1]!)
  return {
    paths: [...new Set([...ticked.filter((t) => ROOTED.test(t)), ...docs])],
    names: ticked.filter((t) => !ROOTED.test(t) && NAME.test(t)),
    constants: ticked.filter((t) => CONSTANT.test(t)),
    scripts: [...new Set(scripts)]
  }
}

export interface Tree {
  /** Every file and folder from the root (folders with a trailing `/`). */
  readonly entries: ReadonlyArray<string>
  /** The text of every source file under `src/` and `test/`, for the constants. */
  readonly sources: ReadonlyArray<string>
  readonly scripts: ReadonlyArray<string>
}

/** Each thing `named` names that the tree does not hold, as a line saying what and why. */
export const unresolved = (named: Named, tree: Tree): Array<string> => {
  const has = (p: string) => tree.entries.includes(p) || tree.entries.includes(`${p.replace(/\/$/, "")}/`)
  const underSrcOrTest = (n: string) => tree.entries.some((e) => (e.startsWith("src/") || e.startsWith("test/")) && e.endsWith(`/${n}`))
  const declared = (c: string) => tree.sources.some((t) => new RegExp(`\\b(?:const|let|function|class|enum)\\s+${c}\\b`).test(t))
  return [
    ...named.paths.filter((p) => !has(p)).map((p) => `${p}: no such file or folder`),
    ...named.names.filter((n) => !underSrcOrTest(n)).map((n) => `${n}: no file or folder under src/ or test/ ends so`),
    ...named.constants.filter((c) => !declared(c)).map((c) => `${c}: declared nowhere under src/ or test/`),
    ...named.scripts.filter((s) => !tree.scripts.includes(s)).map((s) => `npm run ${s}: no such script in package.json`)
  ]
}

let built: Tree | undefined
const tree = (): Tree => {
  if (built !== undefined) return built
  const rootFiles = fs.readdirSync(ROOT, { withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name)
  const all = [...rootFiles, ...["src", "test", "docs", "scripts"].flatMap((d) => [`${d}/`, ...entries(d, d)])]
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }
  built = {
    entries: all,
    sources: all.filter((e) => /^(?:src|test)\/.*\.ts$/.test(e)).map((e) => fs.readFileSync(path.join(ROOT, e), "utf8")),
    scripts: Object.keys(pkg.scripts)
  }
  return built
}

describe("docs/ARCHITECTURE.md's recipes name what the tree holds", () => {
  const doc = fs.readFileSync(path.join(ROOT, "docs/ARCHITECTURE.md"), "utf8")
  const recipes = sectionOf(doc, HEADING)

  it("has the section, and each recipe names files", () => {
    expect(recipes.length).toBeGreaterThan(0)
    const named = namedIn(recipes)
    // Every recipe (a bullet) names at least one file of the tree.
    const bullets = recipes.split("\n- ").slice(1)
    expect(bullets.length).toBeGreaterThanOrEqual(5)
    for (const bullet of bullets) {
      const own = namedIn(bullet)
      expect(own.paths.length + own.names.length, bullet.slice(0, 60)).toBeGreaterThan(0)
    }
    expect(named.paths.length).toBeGreaterThan(10)
  })

  it("every path, file name, constant and npm script a recipe names exists", () => {
    expect(unresolved(namedIn(recipes), tree())).toEqual([])
  })

  it("reports a made-up path, file, constant and script (the check can fail)", () => {
    const text = [
      "- **A thing**: `src/edge/mcp/agent-tools/index.ts` and `src/edge/mcp/agent-tools/teleport.ts`,",
      "  `memory-tools/`, `warp-tools/`, `index.ts`, `Nowhere.ts`, `CLIENT_QUOTA_DEFAULTS`, `WARP_FACTOR_MAX`,",
      "  then `npm run golden:update`, `npm run golden:teleport` and `npm test`; `config.<section>.<key>` is no path.",
      "  Its row in docs/REFERENCE.md's table and docs/TELEPORT.md's."
    ].join("\n")
    const named = namedIn(text)
    expect(named.names).not.toContain("config.<section>.<key>")
    expect(unresolved(named, tree())).toEqual([
      "src/edge/mcp/agent-tools/teleport.ts: no such file or folder",
      "docs/TELEPORT.md: no such file or folder",
      "warp-tools/: no file or folder under src/ or test/ ends so",
      "Nowhere.ts: no file or folder under src/ or test/ ends so",
      "WARP_FACTOR_MAX: declared nowhere under src/ or test/",
      "npm run golden:teleport: no such script in package.json"
    ])
  })

  it("finds the section by its heading, and nothing past the next one", () => {
    const doc = "# T\n\n## Common changes, and the files they touch\n\n- `src/a.ts`\n\n## Next\n\n- `src/b.ts`\n"
    expect(namedIn(sectionOf(doc, HEADING)).paths).toEqual(["src/a.ts"])
    expect(sectionOf("# T\n", HEADING)).toBe("")
  })
})
