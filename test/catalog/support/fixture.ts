/**
 * The daemon the catalog tests talk to: the Hermes double, a Hermes home with a profile config (so
 * `agent_capabilities` has something to project), and clients with each catalog setting.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { startDaemon, tempDir, testConfig, type TestDaemon } from "../../support/daemon.ts"
import { HermesClientTest } from "../../../src/hermes/client/HermesClientTest.ts"

export const CLIENTS = {
  /** Compact catalog, no filter. */
  compact: { catalog: "compact", tools: { include: [], exclude: [] } },
  /** Compact catalog without two tools. */
  trimmed: { catalog: "compact", tools: { exclude: ["agent_run_stop", "agent_skill_delete"] } },
  /** Full catalog; include wins, so agent_run_status stays although it is also excluded. */
  narrow: { catalog: "full", tools: { include: ["agents_list", "agent_run_status"], exclude: ["agent_run_status"] } }
} as const

export type ClientName = keyof typeof CLIENTS | "plain"

export interface CatalogFixture {
  readonly daemon: TestDaemon
  /** Keys by client name; "plain" has no `clients` entry (full catalog, no filter). */
  readonly keys: Readonly<Record<ClientName, string>>
}

export const startCatalogDaemon = async (): Promise<CatalogFixture> => {
  const dir = tempDir()
  const home = path.join(dir, "hermes-home")
  fs.mkdirSync(home, { recursive: true })
  fs.writeFileSync(path.join(home, "config.yaml"), "toolsets: [web, terminal]\napprovals: {mode: manual}\n")
  const config = testConfig({ hermes: { home, url: "http://127.0.0.1:9" }, clients: CLIENTS }, dir)
  const daemon = await startDaemon(config, HermesClientTest())
  const keys = {} as Record<ClientName, string>
  for (const name of [...Object.keys(CLIENTS), "plain"] as ReadonlyArray<ClientName>) keys[name] = await daemon.addClient(name)
  return { daemon, keys }
}
