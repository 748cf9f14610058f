/**
 * A daemon's files for a reliability test: a temp dir with `agent-bridge.yaml` pointing at a
 * simulator that lives in the test process (so it outlives daemon restarts), and the clients
 * admitted beforehand through the same Auth service the CLI uses.
 */
import { Effect, Either, Redacted } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as YAML from "yaml"
import { authLayer } from "../../../src/cli/runtime.ts"
import { loadConfig, type ResolvedConfig } from "../../../src/config/load.ts"
import { Auth } from "../../../src/services/auth/Auth.ts"
import type { Scope } from "../../../src/request/Caller.ts"

export interface BridgeFiles {
  readonly dir: string
  readonly configFile: string
  readonly config: ResolvedConfig
  readonly remove: () => void
}

/** Writes the YAML (bridge section merged over a data dir in the temp dir) and loads it back. */
export const writeBridgeConfig = (yaml: { readonly bridge?: Record<string, unknown>; readonly [k: string]: unknown }, prefix = "agent-bridge-rel-"): BridgeFiles => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  const configFile = path.join(dir, "agent-bridge.yaml")
  fs.writeFileSync(configFile, YAML.stringify({ ...yaml, bridge: { host: "127.0.0.1", data_dir: path.join(dir, "data"), ...(yaml.bridge ?? {}) } }))
  const loaded = loadConfig({ configPath: configFile, env: {} })
  if (Either.isLeft(loaded)) throw new Error(loaded.left.message)
  return { dir, configFile, config: loaded.right, remove: () => fs.rmSync(dir, { recursive: true, force: true }) }
}

/** Admits clients (and reads the admin key) with the daemon stopped, as `agent-bridge client add` does. */
export const admitClients = (config: ResolvedConfig, names: ReadonlyArray<string>, scopes: ReadonlyArray<Scope> = ["agents"]) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const auth = yield* Auth
      const keys = new Map<string, string>()
      for (const name of names) keys.set(name, (yield* auth.addClient(name, scopes)).key)
      return { keys, adminKey: Redacted.value(auth.adminKey) }
    }).pipe(Effect.provide(authLayer(config)))
  )
