/**
 * The docs name files as they are: every file a doc names in backticks (`common/Redactor.ts`,
 * `RunsLive.ts`, `test/redact/formats.test.ts`) is a file of the repo, named by its path from the
 * root, from `src/` or `test/`, or by the end of its path (a name under a folder the text is about).
 *
 * docs/ARCHITECTURE.md, the map of the tree, is held closer: a path it gives from the root
 * (`src/…`, `test/…`, `scripts/…`, in backticks or not) is a file or folder at exactly that path; a
 * path it gives from a layer of `src/` (`services/runs/Runs.ts`, `storage/migrations/`) is one
 * under `src/` or `test/` at exactly that path, not merely a file of that name somewhere; and every
 * folder it names (`memory-tools/`) is one.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"

const ROOT = path.resolve(import.meta.dirname, "../..")
const DOCS = ["README.md", ...fs.readdirSync(path.join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)]
const SKIP = new Set(["node_modules", ".git", ".cache", "dist", "test-artifacts"])
/** Names a doc may give that are no file of the repo: made at run time, outside it, or an API's name. */
const NOT_IN_REPO = new Set([
  "SKILL.md", "dist/agent-bridge.mjs", "config.yaml", "agent-bridge.yaml", "bridge.db", "admin.key", "embedded-hermes.json",
  "Response.json", "/.well-known/agent-card.json"
])

const files = (dir: string, rel = ""): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (SKIP.has(e.name)) return []
    const r = rel === "" ? e.name : `${rel}/${e.name}`
    return e.isDirectory() ? files(path.join(dir, e.name), r) : [r]
  })

const all = files(ROOT)
const folders = (dir: string, rel = ""): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (SKIP.has(e.name) || !e.isDirectory()) return []
    const r = rel === "" ? e.name : `${rel}/${e.name}`
    return [r, ...folders(path.join(dir, e.name), r)]
  })
const allFolders = folders(ROOT)
const named = (text: string) => [...text.matchAll(/`([A-Za-z0-9_./-]+\.(?:ts|sh|mjs|js|json|md))`/g)].map((m) => m[1]!)

export const missing = (names: ReadonlyArray<string>, tree: ReadonlyArray<string>): Array<string> =>
  names.filter((n) => !NOT_IN_REPO.has(n) && !tree.some((f) => f === n || f.endsWith(`/${n}`)))

describe("the docs name files that exist", () => {
  it.each(DOCS)("%s", (doc) => {
    expect(missing(named(fs.readFileSync(path.join(ROOT, doc), "utf8")), all)).toEqual([])
  })

  it("flags a file that is gone (the check can fail)", () => {
    expect(missing(["services/Redactor.ts", "common/Redactor.ts", "Redactor.ts"], ["src/common/Redactor.ts"])).toEqual(["services/Redactor.ts"])
  })
})

/** Where a doc's path may point: the tree's files and folders, and the top folders of `src/`. */
export interface MapTree {
  readonly files: ReadonlyArray<string>
  readonly folders: ReadonlyArray<string>
  readonly layers: ReadonlyArray<string>
}

/** Each path of `doc` that `tree` does not hold as the map says, with why. */
export const mapMisses = (doc: string, tree: MapTree): Array<string> => {
  const isFile = (p: string) => tree.files.includes(p)
  const isFolder = (p: string) => tree.folders.includes(p.replace(/\/$/, ""))
  const at = (p: string) => (p.endsWith("/") ? isFolder(p) : isFile(p) || isFolder(p))
  const misses: Array<string> = []
  // From the root, anywhere in the text: `src/edge/sse.ts`, (test/support/nginx.ts), scripts/peers/.
  for (const m of doc.matchAll(/(?<![\w/.<>-])((?:src|test|scripts)\/[\w./-]*[\w/])/g)) {
    const p = m[1]!
    if (!at(p)) misses.push(`${p}: no such file or folder`)
  }
  const ticked = [...new Set([...doc.matchAll(/`([\w.-]+(?:\/[\w.-]+)*\/?)`/g)].map((m) => m[1]!))]
  for (const p of ticked) {
    const first = p.split("/")[0]!
    if (first === "src" || first === "test" || first === "scripts" || !p.includes("/")) continue
    const layered = tree.layers.includes(first) && p.replace(/\/$/, "").includes("/")
    if (layered) {
      if (!at(`src/${p}`) && !at(`test/${p}`)) misses.push(`${p}: not under src/ or test/ at that path`)
    } else if (p.endsWith("/") && !tree.folders.some((f) => f === p.slice(0, -1) || f.endsWith(`/${p.slice(0, -1)}`))) {
      misses.push(`${p}: no such folder`)
    }
  }
  return [...new Set(misses)]
}

describe("docs/ARCHITECTURE.md gives paths as the tree has them", () => {
  const layers = fs.readdirSync(path.join(ROOT, "src"), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name)

  it("every path from the root or from a layer, and every folder, is where it says", () => {
    const doc = fs.readFileSync(path.join(ROOT, "docs/ARCHITECTURE.md"), "utf8")
    expect(mapMisses(doc, { files: all, folders: allFolders, layers })).toEqual([])
  })

  it("flags a path that moved, even when a file of that name is elsewhere (the check can fail)", () => {
    const tree: MapTree = {
      files: ["src/common/Redactor.ts", "src/services/runs/Runs.ts", "test/support/nginx.ts"],
      folders: ["src", "src/common", "src/services", "src/services/runs", "src/edge", "src/edge/mcp", "src/edge/mcp/memory-tools", "test", "test/support"],
      layers: ["common", "services", "edge"]
    }
    const doc = [
      "`src/common/Redactor.ts`, (test/support/nginx.ts), `common/Redactor.ts`, `services/runs/Runs.ts`,",
      "`memory-tools/`, `services/runs/`, `Redactor.ts`, `<data_dir>/bridge.db`, `/mcp/agents/*`;",
      "moved: src/services/Redactor.ts, `runs/Runs.ts` is a suffix (not checked here), `services/Runs.ts`,",
      "`services/gone/`, `warp-tools/`, test/support/gone.ts."
    ].join("\n")
    expect(mapMisses(doc, tree)).toEqual([
      "src/services/Redactor.ts: no such file or folder",
      "test/support/gone.ts: no such file or folder",
      "services/Runs.ts: not under src/ or test/ at that path",
      "services/gone/: not under src/ or test/ at that path",
      "warp-tools/: no such folder"
    ])
  })
})
