/**
 * A webhook with no route to it cannot stop the daemon (issue 37, item 1). The daemon runs in a
 * network namespace of its own (`unshare -n`: loopback only, and an /etc/hosts of the test's where
 * `hooks.example` is 203.0.113.7), so the public address that name resolves to is unroutable and the
 * connect fails at once (ENETUNREACH, inside `connect()` itself, right after the pinned lookup): the
 * attempt is recorded as failed and retried, the daemon stays up, and a restart over the same
 * outbox row does not crash either. Nothing leaves the namespace. SQLite only: a daemon in an
 * empty namespace cannot reach the test's PostgreSQL server.
 */
import Database from "better-sqlite3"
import * as fs from "node:fs"
import * as path from "node:path"
import * as YAML from "yaml"
import { afterAll, describe, expect, it } from "vitest"
import { canIsolateNetwork, type DaemonProcess, fetchInNamespace, spawnDaemon } from "../support/daemonProcess.ts"
import { freeLoopbackPort } from "../support/freePort.ts"
import { tempDir } from "../support/daemon.ts"

const isolated = await canIsolateNetwork()

interface Row {
  readonly delivery_id: string
  readonly attempts: number
  readonly outcome: string | null
  readonly done_at: number | null
}

describe.skipIf(!isolated)("an unroutable webhook (a network namespace with no route)", () => {
  const running: Array<DaemonProcess> = []
  afterAll(async () => {
    for (const d of running) await d.kill("SIGKILL").catch(() => undefined)
  })

  it("the attempt fails as ENETUNREACH and is retried; the daemon stays up, and so does a restart over the pending row", async () => {
    const dir = tempDir()
    const port = await freeLoopbackPort()
    const configFile = path.join(dir, "agent-bridge.yaml")
    fs.writeFileSync(configFile, YAML.stringify({
      bridge: { port, data_dir: path.join(dir, "data") },
      a2a: { webhook_allow: ["203.0.113.0/24"] }
    }))
    const start = async () => {
      const d = await spawnDaemon({ configFile, port, isolatedNetwork: true, hosts: ["203.0.113.7 hooks.example"], readyTimeoutMs: 90_000 })
      running.push(d)
      return d
    }
    const outbox = (): ReadonlyArray<Row> => {
      const db = new Database(path.join(dir, "data", "bridge.db"), { readonly: true, fileMustExist: true })
      try {
        return db.prepare("SELECT delivery_id, attempts, outcome, done_at FROM a2a_push_outbox").all() as Array<Row>
      } finally {
        db.close()
      }
    }
    /** Waits (bounded) until the outbox holds a row with more than `attempts` attempts, the daemon alive all along. */
    const attemptsPast = async (daemon: DaemonProcess, attempts: number): Promise<Row> => {
      for (let i = 0; i < 600; i++) {
        if (!daemon.isRunning()) throw new Error(`the daemon exited:\n${daemon.output()}`)
        const row = outbox().find((r) => r.attempts > attempts)
        if (row !== undefined) return row
        await new Promise((r) => setTimeout(r, 100))
      }
      throw new Error(`no attempt past ${attempts}:\n${daemon.output()}`)
    }

    const first = await start()
    const adminKey = fs.readFileSync(path.join(dir, "data", "admin.key"), "utf8").trim()
    const sent = await fetchInNamespace(first.pid, `${first.url}/a2a`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminKey}`, "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0", id: 1, method: "SendMessage",
        params: {
          message: { messageId: "unroutable", role: "ROLE_USER", parts: [{ text: "no route" }] },
          configuration: { taskPushNotificationConfig: { url: "http://hooks.example/hook", token: "t" } }
        }
      })
    })
    expect(JSON.parse(sent.text)["result"]?.task?.id).toMatch(/^run_/)
    // The first attempt and its retry (1 s later) fail, and the daemon answers still.
    const row = await attemptsPast(first, 1)
    expect(row.done_at).toBeNull()
    expect(row.outcome).toContain("ENETUNREACH")
    expect(JSON.parse((await fetchInNamespace(first.pid, `${first.url}/healthz`)).text)["ready"]).toBe(true)

    // A start over the pending row tries it again and stays up.
    await first.kill("SIGTERM")
    const second = await start()
    const again = await attemptsPast(second, outbox()[0]!.attempts)
    expect(again.outcome).toContain("ENETUNREACH")
    expect(second.isRunning()).toBe(true)
  }, 240_000)
})
