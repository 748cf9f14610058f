/**
 * Starts a whole daemon in-process on 127.0.0.1:0 with a temporary data dir, for end-to-end tests
 * over real HTTP. The Hermes side is any `HermesClient` layer (the simulator-backed live client, or a
 * double).
 */
import { HttpServer } from "@effect/platform"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { Effect, Either, type Layer, ManagedRuntime, Redacted } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as YAML from "yaml"
import type { AppConfig } from "../../src/config/AppConfig.ts"
import { loadConfig, type ResolvedConfig } from "../../src/config/load.ts"
import { type DaemonOptions, daemonLayer } from "../../src/daemon/Daemon.ts"
import type { HermesClient } from "../../src/hermes/client/HermesClient.ts"
import { Auth } from "../../src/services/auth/Auth.ts"
import type { Scope } from "../../src/request/Caller.ts"
import { tempDir } from "./tempDirs.ts"
import { pgDatabaseFor, TEST_DIALECT } from "./testDb.ts"
import type { Redactor } from "../../src/common/Redactor.ts"

export interface TestDaemon {
  readonly url: string
  readonly config: ResolvedConfig
  readonly adminKey: string
  readonly addClient: (name: string, scopes?: ReadonlyArray<Scope>) => Promise<string>
  readonly revoke: (name: string) => Promise<void>
  /** A new key for `name` (the old one stops working). */
  readonly rotate: (name: string) => Promise<string>
  readonly close: () => Promise<void>
  /** Runs a program against the daemon's own services (a test reading what a store holds). */
  readonly use: <A, E>(program: Effect.Effect<A, E, any>) => Promise<A>
}

export { tempDir } from "./tempDirs.ts"

export const testConfig = (yaml: Record<string, any> = {}, dir = tempDir()): ResolvedConfig => {
  const file = path.join(dir, "agent-bridge.yaml")
  const bridge = { port: 0, data_dir: path.join(dir, "data"), ...(yaml["bridge"] ?? {}) }
  fs.writeFileSync(file, YAML.stringify({ ...yaml, bridge }))
  const loaded = loadConfig({ configPath: file, env: {} })
  if (Either.isLeft(loaded)) throw new Error(loaded.left.message)
  return loaded.right
}

export const startDaemon = async (
  config: ResolvedConfig,
  hermes?: Layer.Layer<HermesClient, never, AppConfig | Redactor>,
  options: Omit<DaemonOptions, "hermes"> = {}
): Promise<TestDaemon> => {
  // In the PostgreSQL project a daemon keeps its data in the database of its data dir (testDb.ts).
  if (TEST_DIALECT === "pg" && config.storage.url === undefined) {
    config = { ...config, storage: { ...config.storage, url: Redacted.make(await pgDatabaseFor(config.dataDir)) } }
  }
  const runtime = ManagedRuntime.make(daemonLayer(config, hermes === undefined ? options : { ...options, hermes }))
  const port = await runtime.runPromise(
    HttpServer.addressWith((a) => Effect.succeed(a._tag === "TcpAddress" ? a.port : 0))
  )
  const auth = await runtime.runPromise(Auth)
  return {
    url: `http://127.0.0.1:${port}`,
    config,
    adminKey: Redacted.value(auth.adminKey),
    addClient: (name, scopes = ["agents"]) => Effect.runPromise(Effect.map(auth.addClient(name, scopes), (r) => r.key)),
    revoke: (name) => Effect.runPromise(Effect.asVoid(auth.revoke(name))),
    rotate: (name) => Effect.runPromise(Effect.map(auth.rotate(name), (r) => r.key)),
    close: () => runtime.dispose(),
    use: (program) => runtime.runPromise(program)
  }
}

/**
 * The protocol era the test clients speak: `modern` (2026-07-28, no handshake, no session) or
 * `legacy` (the 2025 `initialize` handshake and a session). The default is modern; set
 * `AGENT_BRIDGE_TEST_ERA=legacy` to run the same end-to-end tests over the 2025 era.
 */
export type McpEra = "modern" | "legacy"
export const MODERN_PROTOCOL = "2026-07-28"
export const defaultEra = (): McpEra => (process.env["AGENT_BRIDGE_TEST_ERA"] === "legacy" ? "legacy" : "modern")

export const connectMcp = async (baseUrl: string, key: string, server: "agents" | "memory" = "agents", era: McpEra = defaultEra()) => {
  const client = new Client(
    { name: "agent-bridge-test", version: "0.0.0" },
    era === "modern" ? { versionNegotiation: { mode: { pin: MODERN_PROTOCOL } } } : {}
  )
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp/${server}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${key}` } }
  })
  await client.connect(transport)
  return client
}

/**
 * A result's `_meta` without the keys the protocol itself stamps there (2026-07-28 results carry
 * `io.modelcontextprotocol/serverInfo`): what is left is the bridge's own.
 */
export const bridgeMeta = (meta: Record<string, unknown> | undefined) =>
  meta === undefined ? undefined : Object.fromEntries(Object.entries(meta).filter(([k]) => !k.startsWith("io.modelcontextprotocol/")))

/** The text of an error result (`Error executing tool …: bridge.<code>: …`). */
export const errorTextOf = (result: object): string => {
  const r = result as { isError?: boolean; content?: unknown }
  const content = r.content as ReadonlyArray<{ type: string; text?: string }> | undefined
  return r.isError === true ? content?.map((c) => c.text ?? "").join("") ?? "" : ""
}
