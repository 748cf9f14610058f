/**
 * The docs name files as they are: every file a doc names in backticks (`common/Redactor.ts`,
 * `RunsLive.ts`, `test/redact/formats.test.ts`) is a file of the repo, named by its path from the
 * root, from `src/` or `test/`, or by the end of its path (a name under a folder the text is about).
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
