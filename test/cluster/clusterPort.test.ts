/**
 * Issue 37 item 5: the replicas' cluster port is no open control channel. One runner
 * (`ClusterRunnerLive`, as a replica builds it, with a `cluster.secret`) on a PostgreSQL of this
 * file's own; clients on loopback as any local process could be:
 *
 * - raw bytes of the RPC protocol (a msgpack `Ping`) get no answer decoded: the connection is closed
 *   as soon as its first bytes are not the cluster's hello (before the fix: Pong);
 * - `@effect/cluster`'s own client without the secret, or with another secret, cannot even ping the
 *   runner; with the secret it can (the replicas' own path); a hello made for another runner address
 *   (one a replica dialed, relayed here) is refused;
 * - a half-frame flood (a msgpack string header announcing 15 MiB, then its bytes in slow pieces)
 *   is closed at once, and idle connections are bounded: past the cap on pending hellos they are
 *   closed without a word;
 * - after a good hello the stream is the RPC protocol, byte for byte (bytes sent right behind the
 *   hello are not lost), and even an authenticated peer cannot make the runner buffer a message
 *   past `CLUSTER_PORT_LIMITS.frameBytes`.
 */
import { MessageStorage, RunnerAddress, Runners, Sharding, ShardingConfig } from "@effect/cluster"
import { layerClientProtocol } from "@effect/platform-node/NodeClusterSocket"
import { PgClient } from "@effect/sql-pg"
import { RpcSerialization } from "@effect/rpc"
import { Effect, Exit, Layer, ManagedRuntime, Redacted } from "effect"
import { createHmac } from "node:crypto"
import * as net from "node:net"
import { afterAll, describe, expect, it } from "vitest"
import { ClusterRunnerLive } from "../../src/daemon/clusterRunner.ts"
import { clientHello, layerClientProtocolWithSecret } from "../../src/daemon/clusterSocket.ts"
import { CLUSTER_PORT_LIMITS } from "../../src/domain/limits.ts"
import { freeLoopbackPort } from "../support/freePort.ts"
import { usePostgres } from "../support/postgres.ts"
import { sleep, until } from "../support/poll.ts"

const SECRET = Redacted.make("cluster-port-test-secret-0123456789abcdef")

/** A raw TCP client: everything it received, and whether (and when) the server closed it. */
interface Raw {
  readonly socket: net.Socket
  readonly received: () => Buffer
  readonly closed: Promise<number>
  readonly isClosed: () => boolean
}

const connectRaw = (port: number): Promise<Raw> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    let closedAt = 0
    const socket = net.createConnection({ host: "127.0.0.1", port })
    const closed = new Promise<number>((done) => socket.once("close", () => done((closedAt = Date.now()))))
    socket.on("data", (c: Buffer) => chunks.push(c))
    socket.on("error", () => undefined)
    socket.once("connect", () => resolve({ socket, received: () => Buffer.concat(chunks), closed, isClosed: () => closedAt > 0 }))
    socket.once("error", reject)
  })

/** Whatever msgpack values a buffer holds (none when it is not msgpack). */
const decodeAll = (bytes: Buffer): ReadonlyArray<unknown> => {
  try {
    return RpcSerialization.msgPack.unsafeMake().decode(new Uint8Array(bytes))
  } catch {
    return []
  }
}

/** Pings the runner at `port` with the library's own Runners client over `protocol`: did it answer? */
const pingWith = (port: number, protocol: Layer.Layer<Runners.RpcClientProtocol, never, RpcSerialization.RpcSerialization>) =>
  Effect.runPromiseExit(
    Effect.flatMap(Runners.Runners, (runners) => runners.ping(RunnerAddress.make("127.0.0.1", port))).pipe(
      Effect.timeout("20 seconds"),
      Effect.provide(
        Runners.layerRpc.pipe(
          Layer.provide(protocol),
          Layer.provide([MessageStorage.layerNoop, ShardingConfig.layer(), RpcSerialization.layerMsgPack])
        )
      ),
      Effect.scoped
    )
  )

describe("the cluster port without the secret", () => {
  const pg = usePostgres()
  let runtime: ManagedRuntime.ManagedRuntime<Sharding.Sharding, unknown> | undefined
  let port = 0
  const raws: Array<Raw> = []

  const runner = async (ctx: { readonly skip: (note?: string) => void }) => {
    if (runtime !== undefined) return port
    const url = await pg.database(ctx)
    port = await freeLoopbackPort()
    const db = PgClient.layer({ url: Redacted.make(url), maxConnections: 6 })
    runtime = ManagedRuntime.make(ClusterRunnerLive({ host: "127.0.0.1", port }, 6, SECRET).pipe(Layer.provide(db)))
    await runtime.runPromise(Effect.asVoid(Sharding.Sharding))
    return port
  }

  afterAll(async () => {
    for (const r of raws) r.socket.destroy()
    await runtime?.dispose()
  }, 60_000)

  it("a raw msgpack Ping gets no Pong: the connection is closed", async (ctx) => {
    const at = await runner(ctx)
    const raw = await connectRaw(at)
    raws.push(raw)
    raw.socket.write(RpcSerialization.msgPack.unsafeMake().encode({ _tag: "Ping" }) as Uint8Array)
    // Before the fix the runner answered Pong within milliseconds; now it closes the connection.
    await until(() => raw.isClosed() || decodeAll(raw.received()).length > 0, (d) => d, { withinMs: 20_000 })
    expect(decodeAll(raw.received()).map((m) => (m as { _tag?: unknown })._tag)).not.toContain("Pong")
    expect(await until(raw.isClosed, (d) => d, { withinMs: 20_000 })).toBe(true)
  }, 300_000)

  it("a slow half-frame flood is cut off: every connection closed, nothing buffered", async (ctx) => {
    const at = await runner(ctx)
    const flood = await Promise.all(Array.from({ length: 40 }, () => connectRaw(at)))
    raws.push(...flood)
    // A msgpack str32 header announcing 15 MiB, then 64 KiB pieces of it.
    const header = Buffer.from([0xdb, 0x00, 0xf0, 0x00, 0x00])
    for (const r of flood) r.socket.write(header)
    const piece = Buffer.alloc(64 * 1024, 0x61)
    for (let i = 0; i < 8 && !flood.every((r) => r.isClosed()); i++) {
      for (const r of flood) if (!r.isClosed()) r.socket.write(piece)
      await sleep(250)
    }
    expect(await until(() => flood.every((r) => r.isClosed()), (d) => d, { withinMs: 20_000 })).toBe(true)
  }, 300_000)

  it("idle connections are bounded: past the pending cap they are closed without a word", async (ctx) => {
    const at = await runner(ctx)
    const idle = await Promise.all(Array.from({ length: 60 }, () => connectRaw(at)))
    raws.push(...idle)
    // Each one either is greeted (a pending hello, closed by its deadline) or closed at once, unread.
    expect(await until(() => idle.filter((r) => r.isClosed() && r.received().length === 0).length >= 60 - 16, (d) => d, { withinMs: 20_000 })).toBe(true)
    expect(idle.filter((r) => r.received().length > 0).length).toBeLessThanOrEqual(16)
    expect(await until(() => idle.every((r) => r.isClosed()), (d) => d, { withinMs: 30_000 })).toBe(true)
  }, 300_000)
  it("the library's own client cannot ping the runner without the secret or with another; with it, it can", async (ctx) => {
    const at = await runner(ctx)
    expect(Exit.isSuccess(await pingWith(at, layerClientProtocol))).toBe(false)
    expect(Exit.isSuccess(await pingWith(at, layerClientProtocolWithSecret(Redacted.make("another-secret-of-enough-length-0123456789"))))).toBe(false)
    expect(Exit.isSuccess(await pingWith(at, layerClientProtocolWithSecret(SECRET)))).toBe(true)
  }, 300_000)

  it("a hello with the secret but made for another runner address (relayed from a port a replica dialed) is refused", async (ctx) => {
    const at = await runner(ctx)
    const hello = (dialed: string) =>
      Effect.runPromiseExit(
        Effect.acquireUseRelease(
          Effect.promise(() => connectRaw(at)),
          (raw) => {
            raw.socket.removeAllListeners("data")
            return clientHello(raw.socket, Buffer.from(Redacted.value(SECRET)), dialed)
          },
          (raw) => Effect.sync(() => raw.socket.destroy())
        )
      )
    expect(Exit.isSuccess(await hello("127.0.0.1:1"))).toBe(false)
    expect(Exit.isSuccess(await hello(`localhost:${at}`))).toBe(false)
    expect(Exit.isSuccess(await hello(`127.0.0.1:${at}`))).toBe(true)
  }, 300_000)

  it("after a good hello the stream is the RPC protocol: a Ping right behind the hello is answered", async (ctx) => {
    const at = await runner(ctx)
    const raw = await connectRaw(at)
    raws.push(raw)
    // The hello by hand, and the Ping in the same write as the client's proof.
    expect(await until(() => raw.received().length >= 40, (d) => d, { withinMs: 20_000 })).toBe(true)
    const hello = raw.received().subarray(0, 40)
    expect(hello.subarray(0, 8).toString("latin1")).toBe("abclus1\n")
    const clientNonce = Buffer.alloc(32, 7)
    const proof = createHmac("sha256", Redacted.value(SECRET))
      .update("agent-bridge cluster hello v1 client").update(hello.subarray(8)).update(clientNonce).update(`127.0.0.1:${at}`)
      .digest()
    const ping = Buffer.from(RpcSerialization.msgPack.unsafeMake().encode({ _tag: "Ping" }) as Uint8Array)
    raw.socket.write(Buffer.concat([hello.subarray(0, 8), clientNonce, proof, ping]))
    const pong = () => decodeAll(raw.received().subarray(40 + 32)).some((m) => (m as { _tag?: unknown })._tag === "Pong")
    expect(await until(pong, (d) => d, { withinMs: 20_000 })).toBe(true)
    expect(raw.isClosed()).toBe(false)
  }, 300_000)

  it("an authenticated peer cannot make the runner buffer one message past the frame bound", async (ctx) => {
    const at = await runner(ctx)
    const socket = net.createConnection({ host: "127.0.0.1", port: at })
    let closed = false
    socket.on("close", () => (closed = true))
    socket.on("error", () => undefined)
    await new Promise((r) => socket.once("connect", r))
    await Effect.runPromise(clientHello(socket, Buffer.from(Redacted.value(SECRET)), `127.0.0.1:${at}`))
    socket.resume()
    // A msgpack str32 header announcing 15 MiB, then twice the bound, in 64 KiB pieces.
    socket.write(Buffer.from([0xdb, 0x00, 0xf0, 0x00, 0x00]))
    const piece = Buffer.alloc(64 * 1024, 0x61)
    for (let sent = 0; sent < 2 * CLUSTER_PORT_LIMITS.frameBytes && !closed; sent += piece.length) {
      socket.write(piece)
      await sleep(10)
    }
    expect(await until(() => closed, (d) => d, { withinMs: 20_000 })).toBe(true)
    socket.destroy()
  }, 300_000)
})
