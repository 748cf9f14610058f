/**
 * docs/REFERENCE.md stays true to the code: every tool a client can be shown by `tools/list` (the
 * agents server's full and compact catalogs, the memory server), every code of the error table with
 * its HTTP status, and every key of the configuration schema appears there, written as code.
 */
import type { Client } from "@modelcontextprotocol/client"
import { SchemaAST } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ConfigFile } from "../../src/config/schema.ts"
import { ErrorTable } from "../../src/domain/errors.ts"
import { connectMcp, startDaemon, testConfig, type TestDaemon } from "../support/daemon.ts"

const REFERENCE = fs.readFileSync(path.resolve(import.meta.dirname, "../../docs/REFERENCE.md"), "utf8")
const section = (heading: string) => {
  const start = REFERENCE.indexOf(`\n## ${heading}\n`)
  expect(start, `docs/REFERENCE.md has a "## ${heading}" section`).toBeGreaterThanOrEqual(0)
  const end = REFERENCE.indexOf("\n## ", start + 1)
  return REFERENCE.slice(start, end === -1 ? undefined : end)
}

/** Every key path of a schema: `bridge.port`, `hermes.profiles.<name>.url`, … */
const configKeys = (ast: SchemaAST.AST, prefix = "", out = new Set<string>()): Set<string> => {
  const leaf = (key: string, type: SchemaAST.AST) => {
    const before = out.size
    configKeys(type, `${key}.`, out)
    if (out.size === before) out.add(key)
  }
  switch (ast._tag) {
    case "Transformation":
    case "Refinement":
      configKeys(ast.from, prefix, out)
      break
    case "Union":
      for (const member of ast.types) configKeys(member, prefix, out)
      break
    case "TypeLiteral":
      for (const p of ast.propertySignatures) leaf(`${prefix}${String(p.name)}`, p.type)
      for (const i of ast.indexSignatures) leaf(`${prefix}<name>`, i.type)
      break
  }
  return out
}

describe("docs/REFERENCE.md", () => {
  let daemon: TestDaemon
  const clients: Array<Client> = []
  const listed = new Map<string, ReadonlyArray<string>>()

  beforeAll(async () => {
    daemon = await startDaemon(testConfig({ hermes: { url: "sim" }, clients: { small: { catalog: "compact" } } }))
    const full = await connectMcp(daemon.url, await daemon.addClient("big", ["agents", "memory"]))
    const memory = await connectMcp(daemon.url, await daemon.addClient("mem", ["agents", "memory"]), "memory")
    const compact = await connectMcp(daemon.url, await daemon.addClient("small"))
    clients.push(full, memory, compact)
    for (const [name, client] of [["agents (full)", full], ["memory", memory], ["agents (compact)", compact]] as const) {
      listed.set(name, (await client.listTools()).tools.map((t) => t.name))
    }
  }, 60_000)

  afterAll(async () => {
    for (const c of clients) await c.close()
    await daemon?.close()
  })

  it("names every tool of both servers and of the compact catalog", () => {
    expect(listed.get("agents (full)")!.length).toBeGreaterThanOrEqual(16)
    expect(listed.get("memory")!.length).toBeGreaterThanOrEqual(4)
    expect(listed.get("agents (compact)")).toEqual(expect.arrayContaining(["tool_search", "tool_describe", "tool_call"]))
    for (const [server, names] of listed) {
      for (const name of names) expect(REFERENCE, `${server}: ${name}`).toContain(`| \`${name}\` |`)
    }
  })

  it("has every error code with its HTTP status in its error table", () => {
    const table = section("Error codes")
    for (const [tag, row] of Object.entries(ErrorTable)) {
      const line = table.split("\n").find((l) => l.startsWith(`| \`${row.code}\` |`))
      expect(line, `${tag} (${row.code})`).toBeDefined()
      // A fixed status is written as it is; agent_refused's depends on Hermes's answer.
      if (row.code !== "bridge.agent_refused") expect(line, row.code).toContain(`| ${row.status({} as never)} |`)
    }
  })

  it("has every configuration key", () => {
    const keys = configKeys(ConfigFile.ast)
    expect(keys.size).toBeGreaterThan(20)
    const table = section("Configuration")
    for (const key of keys) expect(table, key).toContain(`\`${key}\``)
  })

  it("is what the repo cites: nothing in it points at files outside the repo", () => {
    const root = path.resolve(import.meta.dirname, "../..")
    // Spelled in pieces so this file does not match itself.
    const outside = new RegExp(["\\.\\./shared", "BRIDGE\\.md", "HERMES-API\\.md", "ENGINEERING" + " §"].join("|"))
    const files = (dir: string): Array<string> =>
      fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? (e.name === "node_modules" ? [] : files(path.join(dir, e.name))) : /\.(ts|md|js|sh)$/.test(e.name) ? [path.join(dir, e.name)] : []
      )
    const cited = ["README.md", ...files("docs"), ...files("src"), ...files("test"), ...files("scripts"), ...files("bin")].filter((f) =>
      outside.test(fs.readFileSync(path.join(root, f), "utf8"))
    )
    expect(cited).toEqual([])
  })

  it("and the finder of keys finds them (a key added to the schema would be caught)", () => {
    expect([...configKeys(ConfigFile.ast)]).toEqual(
      expect.arrayContaining(["bridge.port", "bridge.admin_key", "hermes.profiles.<name>.key_file", "clients.<name>.tools.exclude", "inbox.history_retention_days"])
    )
  })
})
