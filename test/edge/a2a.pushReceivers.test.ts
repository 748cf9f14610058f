/**
 * Receivers that are slow, failing and malicious delay nobody else (issue 37, item 3). The real
 * push worker (`PushWorkerLive`) runs over the store (`TestDb`: both dialects) with the bounds set
 * small in the config (`a2a.push_*`): each attempt has a deadline for the whole exchange, attempts
 * run at once within a bound per receiving host, per client and in total, and another client's
 * notification goes out while they hang. The receivers are loopback servers under names the test's
 * resolver answers (each name is a receiving host of its own).
 */
import net from "node:net"
import { Effect, Layer, ManagedRuntime, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AppConfigLive } from "../../src/config/AppConfig.ts"
import { LifecycleReady } from "../../src/common/Lifecycle.ts"
import { makePushConfigs, PushConfigs } from "../../src/services/a2aPush/PushConfigs.ts"
import { pickStarts, PushWorkerLive, type Slot, type TaskSnapshot } from "../../src/services/a2aPush/PushWorker.ts"
import { WebhookResolverTest } from "../../src/services/a2aPush/WebhookResolver.ts"
import { testConfig } from "../support/daemon.ts"
import { newConfig } from "../support/records.ts"
import { TestDb } from "../support/testDb.ts"
import { eventually, type Receiver, startReceiver } from "./support/pushReceiver.ts"

const DEADLINE_MS = 1500

/** A raw TCP receiver: `onConnection` plays it; counts the connections open now and at most. */
interface RawReceiver {
  readonly port: number
  readonly open: () => number
  readonly maxOpen: () => number
  readonly accepted: () => number
  readonly close: () => Promise<void>
}
const rawReceiver = async (play: (socket: net.Socket) => void, shared?: { now: number; max: number }): Promise<RawReceiver> => {
  let open = 0
  let max = 0
  let accepted = 0
  const sockets = new Set<net.Socket>()
  const server = net.createServer((socket) => {
    sockets.add(socket)
    accepted++
    open++
    max = Math.max(max, open)
    if (shared !== undefined) {
      shared.now++
      shared.max = Math.max(shared.max, shared.now)
    }
    socket.on("error", () => undefined)
    socket.once("close", () => {
      sockets.delete(socket)
      open--
      if (shared !== undefined) shared.now--
    })
    play(socket)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    port: (server.address() as net.AddressInfo).port,
    open: () => open,
    maxOpen: () => max,
    accepted: () => accepted,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      })
  }
}

/** Reads the request, then answers a header line one byte every 300 ms, never finishing. */
const trickle = (socket: net.Socket) => {
  socket.once("data", () => {
    socket.write("HTTP/1.1 200 OK\r\nX-Slow: ")
    const timer = setInterval(() => socket.writable && socket.write("a"), 300)
    socket.once("close", () => clearInterval(timer))
  })
}
/** Reads the request and never answers. */
const silent = (socket: net.Socket) => socket.resume()
/** Answers 200 and then a body that never ends (64 KiB at a time). */
const endless = (socket: net.Socket) => {
  socket.once("data", () => {
    socket.write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n")
    const chunk = `10000\r\n${"x".repeat(0x10000)}\r\n`
    const pump = () => {
      while (socket.writable && socket.write(chunk)) { /* until the buffer is full */ }
      if (socket.writable) socket.once("drain", pump)
    }
    pump()
  })
}

const snapshot = (runId: string): TaskSnapshot => ({
  state: "TASK_STATE_WORKING",
  seq: 1,
  terminal: false,
  body: (id) => JSON.stringify({ task: { id: runId, metadata: { bridge: { delivery_id: id } } } })
})

let slow: RawReceiver
let hang: RawReceiver
let huge: RawReceiver
let failing: Receiver
let good: Receiver
const mallory = { now: 0, max: 0 }

beforeAll(async () => {
  slow = await rawReceiver(trickle, mallory)
  hang = await rawReceiver(silent, mallory)
  huge = await rawReceiver(endless)
  failing = await startReceiver()
  good = await startReceiver()
})
afterAll(async () => {
  for (const r of [slow, hang, huge, failing, good]) await r?.close()
})

describe("receivers that are slow, failing or malicious delay nobody else", () => {
  it("each attempt ends at its deadline; one client and one host hold at most their bound; another client's notification goes out meanwhile", async () => {
    const dns = new Map<string, ReadonlyArray<string>>()
    for (const name of ["slow.test", "hang.test", "huge.test", "fail.test", "good.test"]) dns.set(name, ["127.0.0.1"])
    const config = testConfig({
      a2a: {
        webhook_allow: ["127.0.0.1", "slow.test", "hang.test", "huge.test", "fail.test", "good.test"],
        push_timeout_ms: DEADLINE_MS,
        push_concurrency: 6,
        push_per_host: 2,
        push_per_client: 2
      }
    })
    const store = Layer.effect(PushConfigs, makePushConfigs).pipe(Layer.provide(TestDb))
    const base = Layer.mergeAll(store, WebhookResolverTest(dns), AppConfigLive(config), LifecycleReady)
    const render = (runId: string) => Effect.succeed(Option.some(snapshot(runId)))
    // The worker runs in the runtime's scope from the start, as in the daemon: the configs appear
    // while it polls, mallory's six (the oldest) first: three that trickle, three that never answer.
    const runtime = ManagedRuntime.make(Layer.provideMerge(PushWorkerLive(render), base))
    try {
      const put = (runId: string, client: string, url: string) =>
        runtime.runPromise(Effect.flatMap(PushConfigs, (s) => s.put(newConfig(runId, "c", { client, url }))))
      for (let i = 0; i < 3; i++) await put(`run_slow${i}`, "mallory", `http://slow.test:${slow.port}/h${i}`)
      for (let i = 0; i < 3; i++) await put(`run_hang${i}`, "mallory", `http://hang.test:${hang.port}/h${i}`)
      failing.script.push(...Array.from({ length: 20 }, () => ({ status: 500 })))
      await put("run_fail", "eve", `http://fail.test:${failing.port}/hook`)
      await put("run_huge", "trent", `http://huge.test:${huge.port}/hook`)
      await put("run_good", "bob", `http://good.test:${good.port}/hook`)
      const outbox = (runId: string) => runtime.runPromise(Effect.flatMap(PushConfigs, (s) => s.outbox(runId)))
      {
        await eventually(() => good.received.length > 0, "bob's notification while mallory's receivers hang")
        // Mallory's receivers are still holding their attempts: bob did not wait for them.
        expect(slow.accepted() + hang.accepted()).toBeLessThan(6)
        await eventually(() => failing.received.length >= 2, "eve's failing receiver tried again")
        // Each attempt ends at its deadline: the trickling and the silent receivers' rows record it.
        let slowRow = (await outbox("run_slow0"))[0]
        for (let i = 0; i < 300 && (slowRow?.attempts ?? 0) < 1; i++) {
          await new Promise((r) => setTimeout(r, 100))
          slowRow = (await outbox("run_slow0"))[0]
        }
        expect(slowRow).toMatchObject({ attempts: 1, doneAt: null, outcome: `no answer within ${DEADLINE_MS} ms` })
        let hangRow = (await outbox("run_hang0"))[0]
        for (let i = 0; i < 300 && (hangRow?.attempts ?? 0) < 1; i++) {
          await new Promise((r) => setTimeout(r, 100))
          hangRow = (await outbox("run_hang0"))[0]
        }
        expect(hangRow!.outcome).toBe(`no answer within ${DEADLINE_MS} ms`)
        // A 2xx whose body never ends is delivered on its status; the connection is not kept.
        let hugeRow = (await outbox("run_huge"))[0]
        for (let i = 0; i < 300 && hugeRow?.doneAt === null; i++) {
          await new Promise((r) => setTimeout(r, 100))
          hugeRow = (await outbox("run_huge"))[0]
        }
        expect(hugeRow).toMatchObject({ outcome: "HTTP 200" })
        await eventually(() => huge.open() === 0, "the endless body's connection closed")
        // The bounds: mallory (one client) never held more than two at once, nor did one host.
        expect(mallory.max).toBeLessThanOrEqual(2)
        expect(slow.maxOpen()).toBeLessThanOrEqual(2)
        expect(hang.maxOpen()).toBeLessThanOrEqual(2)
      }
    } finally {
      await runtime.dispose()
    }
  }, 120_000)
})

describe("pickStarts: the bounds on attempts at once", () => {
  const slot = (deliveryId: string, client: string, host: string): Slot => ({ deliveryId, client, host })
  const bounds = { deadlineMs: 1000, total: 4, perHost: 2, perClient: 2 }

  it("in order, skipping a candidate whose host or client is at its bound, stopping at the total", () => {
    const candidates = [
      slot("m1", "mallory", "slow"), slot("m2", "mallory", "slow"), slot("m3", "mallory", "hang"),
      slot("e1", "eve", "slow"), slot("e2", "eve", "fail"), slot("b1", "bob", "good"), slot("t1", "trent", "huge")
    ]
    expect(pickStarts(candidates, [], bounds).map((s) => s.deliveryId)).toEqual(["m1", "m2", "e2", "b1"])
  })

  it("counts the attempts already running", () => {
    const running = [slot("m0", "mallory", "hang"), slot("x0", "xavier", "slow")]
    const candidates = [slot("m1", "mallory", "slow"), slot("m2", "mallory", "other"), slot("b1", "bob", "slow"), slot("b2", "bob", "good")]
    // mallory has one running: one more; slow has one running: one more (mallory's); the total is 4.
    expect(pickStarts(candidates, running, bounds).map((s) => s.deliveryId)).toEqual(["m1", "b2"])
    expect(pickStarts(candidates, [...running, slot("y", "y", "y"), slot("z", "z", "z")], bounds)).toEqual([])
  })
})
