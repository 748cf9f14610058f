/**
 * The bridge arm of scripts/bench-peers.ts, in a process of its own so that its CPU can be read from
 * /proc: the daemon with the built-in simulator on a fresh data dir and a free port (as
 * scripts/bench-mcp.ts starts it), a client key with the `agents` scope, and two finished runs (a
 * 1 KB answer and 20 KB of output, whose first 16 KiB window `agent_run_status` answers). When ready
 * it prints one line, `READY {"url","key","smallRunId","windowRunId"}`, and serves until killed.
 *
 * Usage: node --import tsx scripts/peers/bridgeDaemon.ts
 */
import { HttpServer } from "@effect/platform"
import { Effect, Either, ManagedRuntime } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { loadConfig } from "../../src/config/load.ts"
import { daemonLayer } from "../../src/daemon/Daemon.ts"
import { Auth } from "../../src/services/auth/Auth.ts"

const MODERN = "2026-07-28"

const main = async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-peers-"))
  const loaded = loadConfig({ env: { AGENT_BRIDGE_BRIDGE_DATA_DIR: path.join(dir, "data"), AGENT_BRIDGE_BRIDGE_PORT: "0" }, cwd: dir })
  if (Either.isLeft(loaded)) throw new Error(loaded.left.message)
  const runtime = ManagedRuntime.make(daemonLayer(loaded.right))
  const port = await runtime.runPromise(HttpServer.addressWith((a) => Effect.succeed(a._tag === "TcpAddress" ? a.port : 0)))
  const auth = await runtime.runPromise(Auth)
  const key = await Effect.runPromise(Effect.map(auth.addClient("bench-peers", ["agents"]), (r) => r.key))
  const url = `http://127.0.0.1:${port}/mcp/agents/mcp`

  // The runs are started by plain 2026-07-28 calls, waiting until each has finished.
  const finishedRun = async (input: string) => {
    const res = await fetch(url, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": "agent_run" },
      body: JSON.stringify({
        jsonrpc: "2.0", id: 1, method: "tools/call",
        params: {
          name: "agent_run", arguments: { agent: "hermes", input, wait_s: 30 },
          _meta: { "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientInfo": { name: "bench-peers", version: "0" }, "io.modelcontextprotocol/clientCapabilities": {} }
        }
      })
    })
    const text = await res.text()
    const answer = JSON.parse(text) as { result?: { structuredContent?: { run_id: string; status: string } } }
    const view = answer.result?.structuredContent
    if (view?.status !== "completed") throw new Error(`the bench run did not finish: ${text.slice(0, 300)}`)
    return view.run_id
  }
  const smallRunId = await finishedRun("[sim:output=1k] bench, a typical answer")
  const windowRunId = await finishedRun("[sim:output=20k] bench")
  console.log(`READY ${JSON.stringify({ url, key, smallRunId, windowRunId })}`)
  const stop = () => void runtime.dispose().finally(() => process.exit(0))
  process.on("SIGTERM", stop)
  process.on("SIGINT", stop)
}

main().catch((e: unknown) => {
  console.error(e)
  process.exit(1)
})
