/**
 * docs/CONNECT.md's "Connect an A2A agent" snippets, run exactly as printed (the fenced `python` and
 * `js` blocks of that section) against a daemon with the simulator: each must print the completed
 * task and the run's output. A snippet that drifts from the SDKs, or from the bridge, fails here.
 */
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startSimulatorAsync, type SimulatorAsync } from "../../src/hermes/sim/layer.ts"
import { startProxySink, type ProxySink } from "../clients/support/proxySink.ts"
import { startDaemon, type TestDaemon, tempDir, testConfig } from "../support/daemon.ts"
import { peerEnv, pythonBin } from "./support/python.ts"

const ROOT = path.resolve(import.meta.dirname, "..", "..")
const SECTION = "## Connect an A2A agent"

/** The fenced blocks of one language in the A2A section of CONNECT.md, in order. */
export const snippets = (lang: string): ReadonlyArray<string> => {
  const doc = fs.readFileSync(path.join(ROOT, "docs", "CONNECT.md"), "utf8")
  const start = doc.indexOf(SECTION)
  if (start < 0) throw new Error(`docs/CONNECT.md has no "${SECTION}" section`)
  const rest = doc.slice(start + SECTION.length)
  const end = rest.search(/^## /m)
  const section = end < 0 ? rest : rest.slice(0, end)
  return [...section.matchAll(new RegExp("^```" + lang + "\\n([\\s\\S]*?)^```", "gm"))].map((m) => m[1]!)
}

const run = (bin: string, file: string, env: Record<string, string>): Promise<string> =>
  new Promise((resolve, reject) =>
    execFile(bin, [file], { env, timeout: 60_000 }, (error, stdout, stderr) =>
      error === null ? resolve(stdout) : reject(new Error(`${bin} ${file}: ${error.message}\n${stderr}`))
    )
  )

let sim: SimulatorAsync
let daemon: TestDaemon
let sink: ProxySink
let key: string
// Inside the repo, so `@a2a-js/sdk` resolves from the project's node_modules as it would from the user's.
const dir = path.join(ROOT, "test-artifacts", `a2a-snippets-${process.pid}`)

beforeAll(async () => {
  sink = await startProxySink()
  sim = await startSimulatorAsync({})
  daemon = await startDaemon(testConfig({ hermes: { url: sim.url, key: sim.profile("default").key } }, tempDir()))
  key = await daemon.addClient("docs-peer", ["agents", "a2a"]) // what `client add NAME` grants
  fs.mkdirSync(dir, { recursive: true })
}, 60_000)
afterAll(async () => {
  await daemon?.close()
  await sim?.close()
  await sink?.close()
  fs.rmSync(dir, { recursive: true, force: true })
})

const EXPECTED = /TASK_STATE_COMPLETED I looked into "Summarise the open issues"/

describe('docs/CONNECT.md "Connect an A2A agent"', () => {
  it("has one Python and one JavaScript snippet", () => {
    expect(snippets("python")).toHaveLength(1)
    expect(snippets("js")).toHaveLength(1)
  })

  it("the Python snippet runs as printed", async () => {
    const file = path.join(dir, "connect.py")
    fs.writeFileSync(file, snippets("python")[0]!)
    const out = await run(pythonBin(), file, peerEnv(sink.url, { AGENT_BRIDGE_URL: daemon.url, AGENT_BRIDGE_KEY: key }))
    expect(out).toMatch(EXPECTED)
  })

  it("the JavaScript snippet runs as printed", async () => {
    const file = path.join(dir, "connect.mjs")
    fs.writeFileSync(file, snippets("js")[0]!)
    const out = await run(process.execPath, file, peerEnv(sink.url, { AGENT_BRIDGE_URL: daemon.url, AGENT_BRIDGE_KEY: key }))
    expect(out).toMatch(/^run_[0-9a-f]{32} /)
    expect(out).toMatch(EXPECTED)
  })

  it("sent nothing off the machine", () => {
    expect(sink.hits).toEqual([])
  })
})
