/**
 * Runs a scenario of the Python A2A SDK (test/a2a/py/scenarios.py) with the venv's python that
 * scripts/a2a-test.sh exported as AGENT_BRIDGE_A2A_PYTHON, in a clean environment: loopback only,
 * every proxy variable aimed at a sink that records what would have left the machine.
 */
import { execFile } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { proxyEnv } from "../../clients/support/proxySink.ts"

const HERE = path.dirname(fileURLToPath(import.meta.url))
export const SCENARIOS_PY = path.join(HERE, "..", "py", "scenarios.py")

/** The venv's python; the suite fails (never skips) without it: run it through `npm run test:a2a`. */
export const pythonBin = (): string => {
  const bin = process.env["AGENT_BRIDGE_A2A_PYTHON"]
  if (bin === undefined || bin === "") {
    throw new Error("AGENT_BRIDGE_A2A_PYTHON is not set: run this suite with `npm run test:a2a` (it installs a2a-sdk in .cache/a2a-venv)")
  }
  return bin
}

/** The environment a peer runs in: nothing of the machine's keys or proxies, loopback exempt. */
export const peerEnv = (proxy: string, extra: Record<string, string> = {}): Record<string, string> => ({
  PATH: "/usr/local/bin:/usr/bin:/bin",
  HOME: process.env["HOME"] ?? "/tmp",
  LANG: "C.UTF-8",
  PYTHONDONTWRITEBYTECODE: "1",
  ...proxyEnv(proxy),
  ...extra
})

/** A script run to its end (bounded: 60 s), its last stdout line parsed as JSON. */
export const runPython = (args: ReadonlyArray<string>, env: Record<string, string>): Promise<any> =>
  new Promise((resolve, reject) => {
    execFile(pythonBin(), [...args], { env, timeout: 60_000, maxBuffer: 4 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error !== null) return reject(new Error(`python ${args.join(" ")} failed: ${error.message}\n${stderr}`))
      const last = stdout.trim().split("\n").at(-1) ?? ""
      try {
        resolve(JSON.parse(last))
      } catch {
        reject(new Error(`python ${args.join(" ")} printed no JSON on its last line:\n${stdout}\n${stderr}`))
      }
    })
  })

export const scenario = (name: string, url: string, key: string, proxy: string, arg = ""): Promise<any> =>
  runPython([SCENARIOS_PY, name], peerEnv(proxy, { A2A_URL: url, A2A_KEY: key, A2A_ARG: arg }))
