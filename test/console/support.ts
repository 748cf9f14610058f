/**
 * Shared by the console tests: the CLI as a child process (`node bin/agent-bridge.js …`), a Hermes
 * simulator in this process (it outlives daemon restarts, as a real Hermes would), and small waits.
 */
import { Effect, Exit, Scope } from "effect"
import { spawn } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { startSimulator } from "../../src/hermes/sim/server.ts"
import { untilDefined } from "../support/poll.ts"

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..")
const BIN = path.join(REPO, "bin", "agent-bridge.js")

export interface Ran {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

const cleanEnv = (): NodeJS.ProcessEnv => {
  const out: NodeJS.ProcessEnv = { AGENT_BRIDGE_FROM_SOURCE: "1" }
  for (const [k, v] of Object.entries(process.env)) {
    if (k.startsWith("AGENT_BRIDGE_") || k === "API_SERVER_KEY" || k === "NODE_OPTIONS") continue
    out[k] = v
  }
  return out
}

/**
 * Runs the CLI with `--config configFile`; killed after 150 s (a start from the sources through tsx
 * took 33 to 40 s at load average 36, where 60 s cut slower verbs short).
 */
export const cli = (configFile: string, ...args: ReadonlyArray<string>): Promise<Ran> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args, "--config", configFile], { cwd: REPO, env: cleanEnv(), stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")))
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")))
    const timer = setTimeout(() => child.kill("SIGKILL"), 150_000)
    child.once("error", reject)
    child.once("exit", (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })

export interface Sim {
  readonly url: string
  readonly key: string
  readonly close: () => Promise<void>
}

/** A simulator (newer generation) with a known key, until `close`. */
export const startSim = async (key = "sim-key-console-0123456789"): Promise<Sim> => {
  const scope = await Effect.runPromise(Scope.make())
  const sim = await Effect.runPromise(Scope.extend(startSimulator({ profiles: [{ name: "default", key }] }), scope))
  return { url: sim.url, key, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}

/** Polls `check` every 100 ms until it returns a value, for at most `ms` (test/support/poll.ts's loop). */
export const eventually = <A>(check: () => Promise<A | undefined>, ms = 20_000): Promise<A> =>
  untilDefined(check, { withinMs: ms, everyMs: 100 })
