/**
 * Through the whole daemon (MCP over loopback HTTP, the embedded simulator): a client key whose
 * body, without `hal0bk_`, is in a run's output is masked in every tool answer that carries the
 * output (`agent_run_wait`, `agent_run_status`, `agent_run_events`, `agent_runs_list`): a key the
 * daemon made, and a key made by another process (the CLI's own connection and Redactor, as
 * `agent-bridge client add` while the daemon runs) once it has connected.
 */
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { authLayer } from "../../src/cli/runtime.ts"
import { BRIDGE_KEY_PREFIX } from "../../src/domain/bridgeKeys.ts"
import { Auth } from "../../src/services/auth/Auth.ts"
import { connectMcp, startDaemon, type TestDaemon, testConfig } from "../support/daemon.ts"

type Json = Record<string, any>
const structured = (r: object): Json => (r as { structuredContent: Json }).structuredContent

/** `client add` as the CLI runs it: its own layer (connection, Redactor) over the daemon's data dir. */
const addFromCli = (daemon: TestDaemon, name: string) =>
  Effect.runPromise(Effect.map(Effect.flatMap(Auth, (auth) => auth.addClient(name, ["agents"])), (r) => r.key).pipe(
    Effect.provide(authLayer(daemon.config) as Layer.Layer<Auth>)
  ))

describe("a client key's body in a run's output", () => {
  let daemon: TestDaemon
  beforeAll(async () => {
    daemon = await startDaemon(testConfig())
  })
  afterAll(async () => {
    await daemon?.close()
  })

  const answers = async (key: string) => {
    const body = key.slice(BRIDGE_KEY_PREFIX.length)
    const client = await connectMcp(daemon.url, key)
    try {
      // The simulator's answer repeats the prompt, in 8-character deltas.
      const started = structured(await client.callTool({ name: "agent_run", arguments: { agent: "hermes", input: `print ${body} please` } }))
      const runId = started["run_id"] as string
      const waited = await client.callTool({ name: "agent_run_wait", arguments: { run_id: runId, timeout_s: 30 } })
      expect(structured(waited)["status"]).toBe("completed")
      const status = await client.callTool({ name: "agent_run_status", arguments: { run_id: runId } })
      const pages = await Promise.all([1, 3, 100].map((limit) => client.callTool({ name: "agent_run_events", arguments: { run_id: runId, since_seq: 0, limit } })))
      const list = await client.callTool({ name: "agent_runs_list", arguments: {} })
      return { body, texts: [waited, status, ...pages, list].map((r) => JSON.stringify(r)) }
    } finally {
      await client.close().catch(() => undefined)
    }
  }

  it("is masked in every answer, for a key the daemon made", async () => {
    const { body, texts } = await answers(await daemon.addClient("made-by-daemon"))
    expect(texts.join("\n")).toContain("REDACTED")
    for (const t of texts) expect(t).not.toContain(body.slice(0, 12))
  }, 60_000)

  it("is masked in every answer, for a key another process made, once it has connected", async () => {
    const { body, texts } = await answers(await addFromCli(daemon, "made-by-cli"))
    expect(texts.join("\n")).toContain("REDACTED")
    for (const t of texts) expect(t).not.toContain(body.slice(0, 12))
  }, 60_000)
})
