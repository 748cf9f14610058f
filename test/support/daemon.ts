/**
 * Starts a whole daemon in-process on 127.0.0.1:0 with a temporary data dir, for end-to-end tests
 * over real HTTP. The Hermes side is any `HermesClient` layer (the simulator-backed live client, or a
 * double).
 */
import { HttpServer } from "@effect/platform"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Effect, Either, type Layer, ManagedRuntime, Redacted } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as YAML from "yaml"
import type { AppConfig } from "../../src/config/AppConfig.ts"
import { loadConfig, type ResolvedConfig } from "../../src/config/load.ts"
import { daemonLayer } from "../../src/daemon/Daemon.ts"
import type { HermesClient } from "../../src/hermes/client/HermesClient.ts"
import { Auth } from "../../src/services/Auth.ts"
import type { Scope } from "../../src/services/Caller.ts"
import { tempDir } from "./tempDirs.ts"
import type { Redactor } from "../../src/services/Redactor.ts"

export interface TestDaemon {
  readonly url: string
  readonly config: ResolvedConfig
  readonly adminKey: string
  readonly addClient: (name: string, scopes?: ReadonlyArray<Scope>) => Promise<string>
  readonly revoke: (name: string) => Promise<void>
  readonly close: () => Promise<void>
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
  hermes?: Layer.Layer<HermesClient, never, AppConfig | Redactor>
): Promise<TestDaemon> => {
  const runtime = ManagedRuntime.make(daemonLayer(config, hermes === undefined ? {} : { hermes }))
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
    close: () => runtime.dispose()
  }
}

export const connectMcp = async (baseUrl: string, key: string, server: "agents" | "memory" = "agents") => {
  const client = new Client({ name: "agent-bridge-test", version: "0.0.0" })
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp/${server}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${key}` } }
  })
  await client.connect(transport)
  return client
}

/** The text of an error result (`Error executing tool …: bridge.<code>: …`). */
export const errorTextOf = (result: object): string => {
  const r = result as { isError?: boolean; content?: unknown }
  const content = r.content as ReadonlyArray<{ type: string; text?: string }> | undefined
  return r.isError === true ? content?.map((c) => c.text ?? "").join("") ?? "" : ""
}
