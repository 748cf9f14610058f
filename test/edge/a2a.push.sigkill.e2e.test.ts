/**
 * A push notification pending when the daemon is SIGKILLed is sent after it starts again over the
 * same data directory (the outbox is in the store), and a state the run reached while the daemon
 * was down (Hermes, a simulator in this process, kept running it) is sent too.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as YAML from "yaml"
import { afterAll, describe, expect, it } from "vitest"
import { startSimulatorAsync } from "../../src/hermes/sim/layer.ts"
import { isTerminalStatus } from "../../src/hermes/sim/run.ts"
import { until } from "../support/poll.ts"
import { tempDir } from "../support/daemon.ts"
import { spawnDaemon } from "../support/daemonProcess.ts"
import { freeLoopbackPort } from "../support/freePort.ts"
import { eventually, startReceiver, verifySignature } from "./support/pushReceiver.ts"

describe("push notifications across a SIGKILL", () => {
  const cleanups: Array<() => Promise<unknown>> = []
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined)
  })

  it("the pending notification and the state reached while down are both delivered after the restart", async () => {
    const sim = await startSimulatorAsync({ generation: "new" })
    cleanups.push(() => sim.close())
    const receiver = await startReceiver()
    cleanups.push(() => receiver.close())
    const dir = tempDir()
    const port = await freeLoopbackPort()
    const configFile = path.join(dir, "agent-bridge.yaml")
    fs.writeFileSync(configFile, YAML.stringify({
      bridge: { port, data_dir: path.join(dir, "data") },
      hermes: { url: sim.url, key: sim.profiles[0]!.key },
      a2a: { webhook_allow: ["127.0.0.1"] }
    }))
    const first = await spawnDaemon({ configFile, port, readyTimeoutMs: 90_000 })
    cleanups.push(() => first.kill("SIGKILL"))
    const adminKey = fs.readFileSync(path.join(dir, "data", "admin.key"), "utf8").trim()
    const rpc = async (method: string, params: Record<string, unknown>) =>
      (await (await fetch(`${first.url}/a2a`, {
        method: "POST",
        headers: { authorization: `Bearer ${adminKey}`, "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params })
      })).json()) as Record<string, any>

    for (let i = 0; i < 100; i++) receiver.script.push({ status: 500, path: "/hook/kill" })
    const sent = await rpc("SendMessage", {
      message: { messageId: "sigkill-push", role: "ROLE_USER", parts: [{ text: "[sim:slow=4s] survive" }] },
      configuration: { returnImmediately: true, taskPushNotificationConfig: { url: `${receiver.url}/kill`, token: "kill-token" } }
    })
    const taskId = sent["result"].task.id as string
    await eventually(() => receiver.received.length >= 1, "a failed attempt before the kill")
    const pendingId = receiver.received[0]!.headers["x-a2a-delivery-id"]
    await first.kill("SIGKILL")
    receiver.script.length = 0
    // The run completes at Hermes while the bridge is down (the simulator says when).
    await until(
      () => [...sim.handle.state.runs.values()].find((r) => r.input.includes("survive")),
      (run) => run !== undefined && isTerminalStatus(run.status),
      { what: "the run completed at Hermes", withinMs: 30_000 }
    )

    const second = await spawnDaemon({ configFile, port, readyTimeoutMs: 90_000 })
    cleanups.push(() => second.kill("SIGTERM"))
    const ok = () => receiver.received.filter((r) => r.status === 200)
    await eventually(() => ok().some((r) => r.headers["x-a2a-delivery-id"] === pendingId), "the pending notification, same id")
    await eventually(() => ok().some((r) => r.json["task"]?.status?.state === "TASK_STATE_COMPLETED"), "the completed state reached while down")
    for (const r of receiver.received) {
      expect(r.json["task"].id).toBe(taskId)
      expect(verifySignature("kill-token", r.headers, r.body)).toBe(true)
    }
  }, 240_000)
})
