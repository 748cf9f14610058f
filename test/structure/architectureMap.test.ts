/**
 * docs/ARCHITECTURE.md lists things the tree enumerates itself; each list drifted once when the tree
 * grew (a new error code, tag, migration, service folder or CLI verb, and the doc kept its old
 * list). Each is tied to its source here:
 *
 * - the diagram names every top folder of `src/`, every folder of `src/edge/` and `src/services/`,
 *   and every CLI verb `src/main.ts` dispatches;
 * - "Layers and services" names every migration of `src/storage/migrations/index.ts` by number,
 *   and no number that is none;
 * - "Where each error is raised" has a row for every code of `ErrorTable`, and no other code
 *   unless its row says it is HTTP only;
 * - the doubles table has a row for every `Context.Tag` of `src/`, and names no tag that is gone.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { ErrorTable } from "../../src/domain/errors.ts"

const ROOT = path.resolve(import.meta.dirname, "../..")
const SRC = path.join(ROOT, "src")

/** The section under `## heading`, up to the next `## `. */
export const sectionOf = (doc: string, heading: string): string => {
  const start = doc.indexOf(`\n## ${heading}\n`)
  if (start < 0) return ""
  const end = doc.indexOf("\n## ", start + heading.length + 4)
  return doc.slice(start, end < 0 ? undefined : end)
}

/** The first fenced block of `doc` (the layer diagram). */
export const diagramOf = (doc: string): string => {
  const start = doc.indexOf("\n```\n")
  return start < 0 ? "" : doc.slice(start + 5, doc.indexOf("\n```", start + 5))
}

/** The rows of the markdown table whose header row starts with `header`, as their cells. */
export const tableRows = (text: string, header: string): Array<Array<string>> => {
  const at = text.indexOf(header)
  if (at < 0) return []
  const rows: Array<Array<string>> = []
  for (const line of text.slice(at).split("\n").slice(2)) {
    if (!line.startsWith("|")) break
    rows.push(line.split(" | ").map((c) => c.replace(/^\|\s*|\s*\|$/g, "")))
  }
  return rows
}

const ticked = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!)

export interface Listed {
  /** Folders the diagram must name: a top folder of `src/` anywhere, a subfolder in its layer's box. */
  readonly folders: ReadonlyArray<{ readonly name: string; readonly layer?: string }>
  readonly verbs: ReadonlyArray<string>
  readonly migrations: ReadonlyArray<string>
  readonly codes: ReadonlyArray<string>
  readonly tags: ReadonlyArray<string>
}

/** What `doc` leaves out of, or adds to, what the tree lists: one line each. */
export const mapDrift = (doc: string, tree: Listed): Array<string> => {
  const out: Array<string> = []
  const diagram = diagramOf(doc)
  // The diagram's boxes: the lines between two rules (┌ ├ └).
  const boxes = diagram.split(/\n(?=[┌├└])/)
  const boxOf = (layer: string) => boxes.find((b) => b.includes(`│ ${layer}/`)) ?? ""
  for (const f of tree.folders) {
    const where = f.layer === undefined ? diagram : boxOf(f.layer)
    if (!new RegExp(`(?<![\\w-])${f.name}/`).test(where)) out.push(`diagram: no ${f.layer === undefined ? "" : `${f.layer}/`}${f.name}/`)
  }
  for (const v of tree.verbs) if (!new RegExp(`(?<![\\w-])${v}(?![\\w-])`).test(diagram.split("\n").find((l) => l.includes("cli/")) ?? "")) out.push(`diagram: no verb ${v}`)

  const layers = sectionOf(doc, "Layers and services")
  const numbers = new Set([...layers.matchAll(/\b(00\d\d)\b/g)].map((m) => m[1]!))
  for (const n of tree.migrations) if (!numbers.has(n)) out.push(`Layers and services: no migration ${n}`)
  for (const n of numbers) if (!tree.migrations.includes(n)) out.push(`Layers and services: migration ${n} is none`)

  const raised = tableRows(sectionOf(doc, "Where each error is raised"), "| code | raised in |")
  const documented = raised.flatMap((row) => ticked(row[0] ?? "").map((code) => ({ code, httpOnly: /HTTP only/.test(row[0]!) })))
  for (const c of tree.codes) if (!documented.some((d) => d.code === c)) out.push(`Where each error is raised: no row for ${c}`)
  for (const d of documented) if (!d.httpOnly && !tree.codes.includes(d.code)) out.push(`Where each error is raised: ${d.code} is no code of ErrorTable`)

  const doubles = tableRows(sectionOf(doc, "Layer names and test doubles"), "| tag | double | where |")
  const rowTags = doubles.flatMap((row) => ticked(row[0] ?? ""))
  for (const t of tree.tags) if (!rowTags.includes(t)) out.push(`doubles table: no row for ${t}`)
  for (const t of new Set(rowTags)) if (!tree.tags.includes(t)) out.push(`doubles table: ${t} is no tag of src/`)
  return out
}

const sources = (dir: string): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(path.join(dir, e.name)) : e.name.endsWith(".ts") ? [path.join(dir, e.name)] : [])

const subfolders = (dir: string) => fs.readdirSync(path.join(SRC, dir), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name)

const treeListed = (): Listed => {
  const main = fs.readFileSync(path.join(SRC, "main.ts"), "utf8")
  const verbs = [...new Set([...main.matchAll(/case "([a-z-]+)":|verb === "([a-z-]+)"/g)].map((m) => m[1] ?? m[2]!))].filter((v) => v !== "help" && v !== "version")
  const index = fs.readFileSync(path.join(SRC, "storage/migrations/index.ts"), "utf8")
  return {
    folders: [
      ...subfolders(".").map((name) => ({ name })),
      ...["edge", "services"].flatMap((layer) => subfolders(layer).map((name) => ({ name, layer })))
    ],
    verbs,
    migrations: [...index.matchAll(/^\s*"(\d{4})_\w+":/gm)].map((m) => m[1]!),
    codes: Object.values(ErrorTable).map((row) => row.code),
    tags: sources(SRC).flatMap((f) => [...fs.readFileSync(f, "utf8").matchAll(/export class (\w+) extends Context\.Tag\(/g)].map((m) => m[1]!))
  }
}

describe("docs/ARCHITECTURE.md lists what the tree lists", () => {
  it("reads the tree's lists (the check has something to check)", () => {
    const tree = treeListed()
    expect(tree.folders).toEqual(expect.arrayContaining([{ name: "domain" }, { name: "a2a", layer: "edge" }, { name: "runs", layer: "services" }]))
    expect(tree.verbs).toEqual(expect.arrayContaining(["serve", "storage", "hermes-sim"]))
    expect(tree.migrations).toEqual(expect.arrayContaining(["0001", "0016"]))
    expect(tree.codes).toContain("bridge.too_many_queued")
    expect(tree.tags).toEqual(expect.arrayContaining(["Runs", "IssuedSecret"]))
  })

  it("the diagram, the migrations, the error table and the doubles table are complete and current", () => {
    const doc = fs.readFileSync(path.join(ROOT, "docs/ARCHITECTURE.md"), "utf8")
    expect(mapDrift(doc, treeListed())).toEqual([])
  })

  it("reports what a doc leaves out or keeps after it is gone (the check can fail)", () => {
    const doc = [
      "# A", "", "```", "┌──┐", "│ cli/  serve, client │", "├──┤", "│ edge/ mcp/ │", "├──┤", "│ services/ runs/ a2a/ │", "└──┘", "```", "",
      "## Layers and services", "", "- migrated (0001 identity, 0003 gone)", "",
      "## Where each error is raised", "", "| code | raised in |", "| --- | --- |",
      "| `bridge.run_not_found` | x |", "| `bridge.teleported` | y |", "| `auth.unauthorized` (HTTP only) | z |", "",
      "## Layer names and test doubles", "", "| tag | double | where | fakes |", "| --- | --- | --- | --- |",
      "| `Runs`, `Gone` | `RunsTest` | here | this |", ""
    ].join("\n")
    const tree: Listed = {
      folders: [{ name: "edge" }, { name: "mcp", layer: "edge" }, { name: "a2a", layer: "edge" }, { name: "runs", layer: "services" }],
      verbs: ["serve", "client", "storage"],
      migrations: ["0001", "0002"],
      codes: ["bridge.run_not_found", "bridge.too_many_queued"],
      tags: ["Runs", "IssuedSecret"]
    }
    expect(mapDrift(doc, tree)).toEqual([
      "diagram: no edge/a2a/",
      "diagram: no verb storage",
      "Layers and services: no migration 0002",
      "Layers and services: migration 0003 is none",
      "Where each error is raised: no row for bridge.too_many_queued",
      "Where each error is raised: bridge.teleported is no code of ErrorTable",
      "doubles table: no row for IssuedSecret",
      "doubles table: Gone is no tag of src/"
    ])
  })
})
