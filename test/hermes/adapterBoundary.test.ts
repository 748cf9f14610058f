/**
 * The Hermes adapter speaks only Hermes's terms: nothing under src/hermes/client imports the
 * bridge's error classes (`domain/errors.ts`, or `domain/agents.ts`, which builds one) or the
 * services' mapping of its errors (`services/hermes-failures/hermesErrors.ts`). The mapping to `bridge.*` happens in
 * the services, once.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"

const ROOT = path.resolve(import.meta.dirname, "../..")
const CLIENT_DIR = path.join(ROOT, "src/hermes/client")
const FORBIDDEN = ["src/domain/errors.ts", "src/domain/agents.ts", "src/services/hermes-failures/hermesErrors.ts"].map((f) => path.join(ROOT, f))

/** Every module a file names: static imports and re-exports (`import type` too) and dynamic `import()`. */
export const importedModules = (file: string, text = fs.readFileSync(file, "utf8")): ReadonlyArray<string> => {
  const specifiers = [
    ...text.matchAll(/\b(?:import|export)\b[^"'`;]*?\bfrom\s*["']([^"']+)["']/g),
    ...text.matchAll(/\bimport\s*["']([^"']+)["']/g),
    ...text.matchAll(/\bimport\s*\(\s*["']([^"']+)["']\s*\)/g)
  ].map((m) => m[1]!)
  return specifiers.filter((s) => s.startsWith(".")).map((s) => path.resolve(path.dirname(file), s))
}

const filesUnder = (dir: string): ReadonlyArray<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(path.join(dir, e.name)) : e.name.endsWith(".ts") ? [path.join(dir, e.name)] : []
  )

describe("the Hermes adapter's error boundary", () => {
  it("the import scan sees type-only, multi-line, re-exported and dynamic imports", () => {
    const file = path.join(CLIENT_DIR, "example.ts")
    const text = [
      `import type { AgentRefused } from "../../domain/errors.ts"`,
      `import {`,
      `  unknownAgent`,
      `} from "../../domain/agents.ts"`,
      `export { toBridgeError } from '../../services/hermes-failures/hermesErrors.ts'`,
      `const later = () => import("../../domain/errors.ts")`,
      `import { Effect } from "effect"`
    ].join("\n")
    expect(importedModules(file, text).map((m) => path.relative(ROOT, m))).toEqual([
      "src/domain/errors.ts", "src/domain/agents.ts", "src/services/hermes-failures/hermesErrors.ts", "src/domain/errors.ts"
    ])
    // And on a real file that does import them: the services' mapping.
    const mapping = importedModules(path.join(ROOT, "src/services/hermes-failures/hermesErrors.ts"))
    expect(mapping).toEqual(expect.arrayContaining([FORBIDDEN[0], FORBIDDEN[1]]))
  })

  it("no file under src/hermes/client imports the bridge's errors or their mapping", () => {
    const files = filesUnder(CLIENT_DIR)
    expect(files.length).toBeGreaterThanOrEqual(8)
    const offenders = files.flatMap((f) =>
      importedModules(f).filter((m) => FORBIDDEN.includes(m)).map((m) => `${path.relative(ROOT, f)} → ${path.relative(ROOT, m)}`)
    )
    expect(offenders).toEqual([])
  })

  it("the services call Hermes through bridgeHermes: only it, and the start that reads a refusal first, use the mapping", () => {
    const mapping = path.join(ROOT, "src/services/hermes-failures/hermesErrors.ts")
    const allowed = ["src/services/hermes-failures/bridgeHermes.ts", "src/services/runs/hermesStart.ts"]
    const users = filesUnder(path.join(ROOT, "src"))
      .filter((f) => importedModules(f).includes(mapping))
      .map((f) => path.relative(ROOT, f))
    expect(users.filter((f) => !allowed.includes(f))).toEqual([])
  })
})
