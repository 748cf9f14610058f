/**
 * The Hermes simulator in a child process, so a soak's figures for this process (the daemon's)
 * do not include the simulator's work or memory, and the two use both cores.
 */
import { spawn } from "node:child_process"
import * as path from "node:path"
import * as readline from "node:readline"
import { fileURLToPath } from "node:url"
import type { SimOptions } from "../../../src/hermes/sim/options.ts"

const MAIN = path.join(path.dirname(fileURLToPath(import.meta.url)), "simProcessMain.ts")
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..")

export interface SimProcess {
  readonly url: string
  readonly key: string
  readonly pid: number
  readonly stop: () => Promise<void>
}

export const startSimProcess = async (options: SimOptions, startTimeoutMs = 120_000): Promise<SimProcess> => {
  const env = { ...process.env }
  delete env["NODE_OPTIONS"]
  const child = spawn(process.execPath, ["--import", "tsx", MAIN, JSON.stringify(options)], { cwd: REPO, env, stdio: ["ignore", "pipe", "inherit"] })
  const guard = () => void child.kill("SIGKILL")
  process.once("exit", guard)
  const exited = new Promise<void>((resolve) => child.once("exit", () => {
    process.removeListener("exit", guard)
    resolve()
  }))
  const lines = readline.createInterface({ input: child.stdout! })
  const first = await Promise.race([
    new Promise<string>((resolve) => lines.once("line", resolve)),
    exited.then(() => { throw new Error("the simulator process exited before it listened") }),
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error("the simulator process did not start in time")), startTimeoutMs).unref())
  ])
  const { url, key } = JSON.parse(first) as { url: string; key: string }
  return {
    url,
    key,
    pid: child.pid ?? -1,
    stop: async () => {
      child.kill("SIGTERM")
      await Promise.race([exited, new Promise<void>((resolve) => setTimeout(resolve, 10_000).unref())])
      child.kill("SIGKILL")
      await exited
    }
  }
}
