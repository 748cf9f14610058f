/**
 * Isolation and probing over the real MCP surface: another client's run ids, note ids, inbox rows
 * and pending skill changes answer exactly as unknown ones do (same code, same message once the
 * id is taken out), touch nothing, and take the same time within measurement noise.
 */
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startSimulatorAsync, type SimulatorAsync } from "../../src/hermes/sim/layer.ts"
import { startDaemon, tempDir, testConfig, type TestDaemon } from "../support/daemon.ts"
import { modernRequest } from "../support/mcpWire.ts"
import { eventually } from "./support/bounded.ts"
import { type McpSession, openSession, type ToolOutcome } from "./support/mcpClient.ts"
import { compareLatencies, type LatencyComparison } from "./support/timing.ts"

const CALL_MS = 20_000
const skillMd = (name: string, body: string) => `---\nname: ${name}\ndescription: A skill for the isolation test.\n---\n# Steps\n\n${body}\n`
const randomRunId = () => `run_${randomBytes(16).toString("hex")}`
const randomNoteId = () => `mem_${randomBytes(12).toString("hex")}`
const TASKS = "io.modelcontextprotocol/tasks"

/** A raw HTTP answer (status, content type, body), for comparing two answers byte for byte. */
interface RawAnswer {
  readonly status: number
  readonly type: string | null
  readonly body: string
}
const rawAnswer = async (res: Response): Promise<RawAnswer> => ({ status: res.status, type: res.headers.get("content-type"), body: await res.text() })
/** The answer with one id taken out (and the JSON-RPC id, which the caller numbers). */
const withoutId = (a: RawAnswer, id: string): RawAnswer => ({ ...a, body: a.body.split(id).join("<id>") })

/** An outcome with one id taken out, so answers about two different ids compare equal. */
const normalise = (o: ToolOutcome, id: string) => (o.ok ? { ok: true } : { ok: false, code: o.code, text: o.text.split(id).join("<id>") })

const ok = (what: string, o: ToolOutcome) => {
  if (!o.ok) throw new Error(`${what}: ${o.text}`)
  return o.value
}

describe("isolation and probing", () => {
  let sim: SimulatorAsync
  let daemon: TestDaemon
  let alice: McpSession
  let bob: McpSession
  let aliceMemory: McpSession
  let bobMemory: McpSession
  let aliceKey: string
  let bobKey: string
  let dir: string | undefined

  beforeAll(async () => {
    sim = await startSimulatorAsync({ generation: "new", maxConcurrentRuns: 100 })
    dir = tempDir("agent-bridge-rel-")
    daemon = await startDaemon(testConfig({
      bridge: { max_concurrent_runs_per_client: 20 },
      hermes: { url: sim.url, key: sim.profile("default").key, max_concurrent_runs: 100 }
    }, dir))
    aliceKey = await daemon.addClient("alice", ["agents", "memory", "a2a"])
    bobKey = await daemon.addClient("bob", ["agents", "memory", "a2a"])
    alice = await openSession(daemon.url, aliceKey)
    bob = await openSession(daemon.url, bobKey)
    aliceMemory = await openSession(daemon.url, aliceKey, "memory")
    bobMemory = await openSession(daemon.url, bobKey, "memory")
  })
  afterAll(async () => {
    for (const s of [alice, bob, aliceMemory, bobMemory]) await s?.close()
    await daemon?.close()
    await sim?.close()
    if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true })
  })

  it("every run tool answers another client's run exactly like an unknown id, and changes nothing", async () => {
    const asking = ok("start", await alice.call("agent_run", { agent: "hermes", input: "isolation [sim:clarify]", idempotency_key: "mine" }, CALL_MS))
    const view = await eventually("a pending question", 30_000, async () => ok("status", await alice.call("agent_run_status", { run_id: asking.run_id }, CALL_MS)), (v) => v.pending !== null)
    const requestId = view.pending.request_id as string
    const hermesCallsBefore = sim.handle.state.requests.filter((r) => r.method === "POST").length

    const probes: ReadonlyArray<readonly [string, (id: string) => Record<string, unknown>]> = [
      ["agent_run_status", (id) => ({ run_id: id })],
      ["agent_run_status", (id) => ({ run_id: id, offset: 5 })],
      ["agent_run_events", (id) => ({ run_id: id, since_seq: 0 })],
      ["agent_run_wait", (id) => ({ run_id: id, timeout_s: 0 })],
      ["agent_run_wait", (id) => ({ run_id: id, timeout_s: 1 })],
      ["agent_run_answer", (id) => ({ run_id: id, request_id: requestId, answer: "production" })],
      ["agent_run_steer", (id) => ({ run_id: id, input: "change course" })],
      ["agent_run_stop", (id) => ({ run_id: id })]
    ]
    for (const [tool, args] of probes) {
      const unknown = randomRunId()
      const onForeign = await bob.call(tool, args(asking.run_id), CALL_MS)
      const onUnknown = await bob.call(tool, args(unknown), CALL_MS)
      expect(onForeign.ok ? "answered" : onForeign.code, tool).toBe("bridge.run_not_found")
      expect(normalise(onForeign, asking.run_id), tool).toEqual(normalise(onUnknown, unknown))
    }
    // Nothing reached Hermes, and alice's run still waits on her question.
    expect(sim.handle.state.requests.filter((r) => r.method === "POST").length).toBe(hermesCallsBefore)
    const after = ok("status", await alice.call("agent_run_status", { run_id: asking.run_id }, CALL_MS))
    expect(after.status).toBe("waiting_for_clarification")
    expect(after.pending?.request_id).toBe(requestId)
    // Keys are private: bob's same idempotency key is his own run; lists show own runs only.
    const bobs = ok("bob start", await bob.call("agent_run", { agent: "hermes", input: "isolation [sim:clarify]", idempotency_key: "mine" }, CALL_MS))
    expect(bobs.run_id).not.toBe(asking.run_id)
    const listed = ok("list", await bob.call("agent_runs_list", { limit: 200 }, CALL_MS)).runs as ReadonlyArray<{ run_id: string }>
    expect(listed.map((r) => r.run_id)).toEqual([bobs.run_id])
    for (const [who, id] of [[alice, asking.run_id], [bob, bobs.run_id]] as const) {
      ok("stop", await who.call("agent_run_stop", { run_id: id }, CALL_MS))
    }
  })

  /** One A2A JSON-RPC request of bob's, answered raw. */
  const bobA2a = (method: string, params: Record<string, unknown>) =>
    fetch(`${daemon.url}/a2a`, {
      method: "POST",
      headers: { authorization: `Bearer ${bobKey}`, "content-type": "application/json", "a2a-version": "1.0" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method, params })
    }).then(rawAnswer)
  /** One 2026-07-28 MCP request of bob's with the Tasks extension declared, answered raw. */
  const bobTask = (method: string, params: { readonly taskId: string } & Record<string, unknown>) => {
    const request = modernRequest(bobKey, 7, method, { ...params, _meta: { "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS]: {} } } } })
    return fetch(`${daemon.url}/mcp/agents/mcp`, { ...request, headers: { ...request.headers, "mcp-name": params.taskId } }).then(rawAnswer)
  }

  it("A2A tasks and MCP tasks answer another client's task exactly like an unknown id, byte for byte", async () => {
    const sent = await fetch(`${daemon.url}/a2a`, {
      method: "POST",
      headers: { authorization: `Bearer ${aliceKey}`, "content-type": "application/json", "a2a-version": "1.0" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: { messageId: "iso-1", role: "ROLE_USER", parts: [{ text: "isolation [sim:slow=60s]" }] }, configuration: { returnImmediately: true } } })
    }).then((r) => r.json() as Promise<Record<string, any>>)
    const taskId = sent["result"].task.id as string
    const probes: ReadonlyArray<readonly [string, (id: string) => Promise<RawAnswer>]> = [
      ["a2a GetTask", (id) => bobA2a("GetTask", { id })],
      ["a2a GetTask with history", (id) => bobA2a("GetTask", { id, historyLength: 5 })],
      ["a2a CancelTask", (id) => bobA2a("CancelTask", { id })],
      ["a2a ListTaskPushNotificationConfigs", (id) => bobA2a("ListTaskPushNotificationConfigs", { taskId: id })],
      ["mcp tasks/get", (id) => bobTask("tasks/get", { taskId: id })],
      ["mcp tasks/cancel", (id) => bobTask("tasks/cancel", { taskId: id })],
      ["mcp tasks/update", (id) => bobTask("tasks/update", { taskId: id, inputResponses: {} })]
    ]
    for (const [what, probe] of probes) {
      const unknown = randomRunId()
      const onForeign = await probe(taskId)
      const onUnknown = await probe(unknown)
      expect(onForeign.status, what).toBeLessThan(500)
      expect(onForeign.body, what).not.toContain("isolation")
      expect(withoutId(onForeign, taskId), what).toEqual(withoutId(onUnknown, unknown))
      // A not-found answer, not a refusal of the request before the task was looked up.
      expect(onForeign.body, what).toMatch(/bridge\.run_not_found|Task not found/)
    }
    // Still alice's, still running.
    const mine = await fetch(`${daemon.url}/a2a`, {
      method: "POST",
      headers: { authorization: `Bearer ${aliceKey}`, "content-type": "application/json", "a2a-version": "1.0" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "CancelTask", params: { id: taskId } })
    }).then((r) => r.json() as Promise<Record<string, any>>)
    expect(mine["result"]?.id).toBe(taskId)
  })

  it("notes: another client's private notes never show, and its note ids answer like unknown ones", async () => {
    const word = `zebra${randomBytes(4).toString("hex")}`
    const secretNote = ok("add", await aliceMemory.call("memory_add", { text: `alice alone knows ${word}` }, CALL_MS))
    const sharedNote = ok("add shared", await aliceMemory.call("memory_add", { text: `everyone may read ${word}`, namespace: "shared" }, CALL_MS))
    const texts = (o: ToolOutcome, key: "results" | "notes") => (ok("read", o)[key] as ReadonlyArray<{ text: string }>).map((n) => n.text)

    for (const namespace of ["all", "private", "shared"]) {
      const found = texts(await bobMemory.call("memory_search", { query: word, namespace }, CALL_MS), "results")
      expect(found.some((t) => t.includes("alice alone"))).toBe(false)
      const listed = texts(await bobMemory.call("memory_list", { namespace, limit: 50 }, CALL_MS), "notes")
      expect(listed.some((t) => t.includes("alice alone"))).toBe(false)
    }
    // The shared note is shared; the teach tool's `shared` search reads shared plus bob's own.
    expect(texts(await bobMemory.call("memory_search", { query: word }, CALL_MS), "results").some((t) => t.includes("everyone"))).toBe(true)
    const viaTeach = texts(await bob.call("agent_memory_search", { agent: "shared", query: word }, CALL_MS), "results")
    expect(viaTeach.some((t) => t.includes("alice alone"))).toBe(false)
    // Deleting: alice's private note, her shared note and an unknown id all answer alike.
    for (const id of [secretNote.id as string, sharedNote.id as string]) {
      const unknown = randomNoteId()
      const onForeign = await bobMemory.call("memory_delete", { id }, CALL_MS)
      const onUnknown = await bobMemory.call("memory_delete", { id: unknown }, CALL_MS)
      expect(onForeign.ok ? "deleted" : onForeign.code).toBe("bridge.memory_invalid")
      expect(normalise(onForeign, id)).toEqual(normalise(onUnknown, unknown))
    }
    expect(texts(await aliceMemory.call("memory_search", { query: word, namespace: "private" }, CALL_MS), "results")).toEqual([`alice alone knows ${word}`])
  })

  it("skill changes and inbox rows: another client's pending change is invisible and its row ids answer like unknown ones", async () => {
    const proposed = ok("put", await alice.call("agent_skill_put", { name: "alice-skill", skill_md: skillMd("alice-skill", "1. Alice's way.") }, CALL_MS))
    // The same content from bob is his own row: he never learns alice's approval id.
    const same = ok("bob put", await bob.call("agent_skill_put", { name: "alice-skill", skill_md: skillMd("alice-skill", "1. Alice's way.") }, CALL_MS))
    expect(same.approval_id).not.toBe(proposed.approval_id)
    // A pending put is not a skill: reads and deletes answer as for a name nobody proposed.
    for (const [tool, args] of [
      ["agent_skill_get", (n: string) => ({ name: n })],
      ["agent_skill_delete", (n: string) => ({ name: n })]
    ] as const) {
      const onPending = await bob.call(tool, args("alice-skill"), CALL_MS)
      const onUnknown = await bob.call(tool, args("nobody-skill"), CALL_MS)
      expect(normalise(onPending, "alice-skill"), tool).toEqual(normalise(onUnknown, "nobody-skill"))
    }
    expect((ok("list", await bob.call("agent_skills_list", {}, CALL_MS)).skills as ReadonlyArray<{ name: string }>).some((s) => s.name === "alice-skill")).toBe(false)
    // Rows are the operator's: a client key gets the same refusal for a real row id and a made-up one.
    const unknownRow = `appr_${randomBytes(8).toString("hex")}`
    for (const method of ["GET", "POST"]) {
      const answers = []
      for (const id of [proposed.approval_id as string, unknownRow]) {
        const res = await fetch(`${daemon.url}/inbox/rows/${encodeURIComponent(id)}`, {
          method,
          redirect: "manual",
          headers: { authorization: `Bearer ${bobKey}`, ...(method === "POST" ? { "content-type": "application/x-www-form-urlencoded" } : {}) },
          ...(method === "POST" ? { body: "decision=approve" } : {})
        })
        // The sign-in form carries a fresh one-time token each time; everything else must match.
        const body = (await res.text()).split(id).join("<id>").replace(/name="csrf" value="[^"]*"/g, 'name="csrf" value="<token>"')
        answers.push({ status: res.status, location: res.headers.get("location"), body })
      }
      expect(answers[0], method).toEqual(answers[1])
      expect(answers[0]!.status, method).toBeGreaterThanOrEqual(300)
    }
  })

  it("found-but-foreign and unknown ids take the same time (medians of interleaved samples)", async () => {
    const run = ok("start", await alice.call("agent_run", { agent: "hermes", input: "timing [sim:deltas=3]" }, CALL_MS))
    const note = ok("add", await aliceMemory.call("memory_add", { text: "timing note" }, CALL_MS))
    const cases: ReadonlyArray<readonly [string, McpSession, string, (id: string) => Record<string, unknown>, () => string]> = [
      ["agent_run_status", bob, run.run_id, (id) => ({ run_id: id }), randomRunId],
      ["agent_run_events", bob, run.run_id, (id) => ({ run_id: id, since_seq: 0 }), randomRunId],
      ["memory_delete", bobMemory, note.id, (id) => ({ id }), randomNoteId]
    ]
    const results: Array<LatencyComparison> = []
    for (const [tool, session, foreignId, args, unknownId] of cases) {
      const result = await compareLatencies(tool, 200, {
        foreign: () => session.call(tool, args(foreignId), CALL_MS),
        unknown: () => session.call(tool, args(unknownId()), CALL_MS)
      })
      results.push(result)
    }
    // The other faces of a run: an A2A task and an MCP task.
    const faces: ReadonlyArray<readonly [string, (id: string) => Promise<RawAnswer>]> = [
      ["a2a GetTask", (id) => bobA2a("GetTask", { id })],
      ["mcp tasks/get", (id) => bobTask("tasks/get", { taskId: id })]
    ]
    for (const [what, probe] of faces) {
      results.push(await compareLatencies(what, 200, { foreign: () => probe(run.run_id), unknown: () => probe(randomRunId()) }))
    }
    console.log(`probe timing (ms; ${results[0]!.samples} interleaved samples each):\n${results.map((r) => `  ${r.describe}`).join("\n")}`)
    for (const r of results) expect(r.withinNoise, r.describe).toBe(true)
  }, 300_000)
})
