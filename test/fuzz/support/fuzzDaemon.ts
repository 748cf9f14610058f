/**
 * The daemon the fuzz tests hammer: the whole `daemonLayer` (embedded Hermes simulator, SQLite in a
 * temp dir, the real HTTP listener on 127.0.0.1:0), plus a handle on its `McpSessions`, so most
 * inputs can be sent in-process as web `Request`s through the very code an HTTP request reaches after
 * the node socket (`app.ts` → `McpSessions.handle` → SDK transport → JSON-RPC → `runTool`).
 *
 * Clients: `fuzz` (full catalog, agents + memory), `fuzzc` (compact catalog: the meta tools) and
 * `other` (owns runs, notes and skill proposals whose ids the fuzzer uses as foreign ids).
 */
import { HttpServer } from "@effect/platform"
import { Effect, ManagedRuntime, Option, Redacted } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { daemonLayer } from "../../../src/daemon/Daemon.ts"
import type { ResolvedConfig } from "../../../src/config/load.ts"
import type { Catalog, ServerKind } from "../../../src/edge/mcp/catalog/listing.ts"
import { makeCatalog } from "../../../src/edge/mcp/catalog/clientCatalog.ts"
import { McpSessions, type McpSessionsShape } from "../../../src/edge/mcp/McpSessions.ts"
import { memoryTools } from "../../../src/edge/mcp/memory-tools/index.ts"
import { Auth } from "../../../src/services/auth/Auth.ts"
import type { CallerShape, Scope } from "../../../src/request/Caller.ts"
import { tempDir, testConfig } from "../../support/daemon.ts"

export const FUZZ_CLIENTS = {
  fuzzc: { catalog: "compact", tools: { include: [], exclude: [] } }
} as const

export interface FuzzClient {
  readonly name: string
  readonly key: string
  /** The caller the edge derives from this key (same `Auth.authenticate`). */
  readonly caller: CallerShape
}

export interface FuzzDaemon {
  readonly url: string
  readonly config: ResolvedConfig
  /** Built as `daemonLayer` builds the daemon's: who may call what, for judging answers. */
  readonly catalog: Catalog
  readonly sessions: McpSessionsShape
  readonly clients: { readonly fuzz: FuzzClient; readonly fuzzc: FuzzClient; readonly other: FuzzClient }
  readonly adminKey: string
  /** The daemon still answers `/healthz` with 200. */
  readonly healthy: () => Promise<boolean>
  readonly close: () => Promise<void>
}

export const startFuzzDaemon = async (): Promise<FuzzDaemon> => {
  const dir = tempDir("agent-bridge-fuzz-")
  const home = path.join(dir, "hermes-home")
  fs.mkdirSync(home, { recursive: true })
  fs.writeFileSync(path.join(home, "config.yaml"), "toolsets: [web, terminal]\napprovals: {mode: manual}\n")
  const config = testConfig({ hermes: { home }, clients: FUZZ_CLIENTS }, dir)
  const runtime = ManagedRuntime.make(daemonLayer(config))
  const port = await runtime.runPromise(HttpServer.addressWith((a) => Effect.succeed(a._tag === "TcpAddress" ? a.port : 0)))
  const auth = await runtime.runPromise(Auth)
  const sessions = await runtime.runPromise(McpSessions)
  const client = async (name: string, scopes: ReadonlyArray<Scope>): Promise<FuzzClient> => {
    const { key } = await Effect.runPromise(auth.addClient(name, scopes))
    const caller = Option.getOrThrow(await Effect.runPromise(auth.authenticate(key)))
    return { name, key, caller }
  }
  const url = `http://127.0.0.1:${port}`
  return {
    url,
    config,
    catalog: makeCatalog(config.clients, memoryTools),
    sessions,
    clients: {
      fuzz: await client("fuzz", ["agents", "memory"]),
      fuzzc: await client("fuzzc", ["agents", "memory"]),
      other: await client("other", ["agents", "memory"])
    },
    adminKey: Redacted.value(auth.adminKey),
    healthy: async () => (await fetch(`${url}/healthz`)).status === 200,
    close: () => runtime.dispose()
  }
}

export const mcpPath = (kind: ServerKind) => `/mcp/${kind}/mcp`
