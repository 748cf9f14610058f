/**
 * The cluster port with a door (issue 37 item 5): `@effect/cluster`'s socket runner, whose RPC
 * server decodes whatever a connection sends, behind a hello that proves the shared
 * `cluster.secret`, on both ends.
 *
 * The hello, before any byte of the connection reaches the RPC decoder (version 1):
 *
 *   server → client   MAGIC (8) ‖ Ns (32 random bytes)
 *   client → server   MAGIC (8) ‖ Nc (32 random bytes) ‖ HMAC-SHA256(secret, "…client" ‖ Ns ‖ Nc ‖ A)
 *   server → client   HMAC-SHA256(secret, "…server" ‖ Ns ‖ Nc ‖ A)
 *
 * where A is the runner address the client dialed (`host:port`, as the cluster records it) and the
 * server checks against its own. Each side checks the other's MAC (node:crypto's `timingSafeEqual`)
 * with nonces of its own choice, so a recorded hello is worth nothing on another connection; the
 * server's proof (another label) never passes as a client's; and a process that holds some other
 * address a replica dials (a dead replica's port) cannot relay that replica's hello to a live one. A connection whose first 8 bytes are not MAGIC is closed at once; one
 * whose proof is wrong is closed without an answer; one that has not finished within
 * `CLUSTER_PORT_LIMITS.handshakeMs` is closed. Only then is the socket handed to the library,
 * unchanged (the bytes after the hello are the RPC protocol, as before). At most
 * `pendingHandshakes` connections are in their hello and `connections` open at all; one more is
 * closed unread. The RPC parser's buffer for one incomplete message is `frameBytes` (the library's
 * `maxBufferSize`: past it the connection is closed), for the authenticated peers too.
 *
 * The hello authenticates the connection, it does not encrypt it: the messages (run ids) cross the
 * network in the clear, so the port belongs on loopback or a private network (docs/DEPLOY.md).
 */
import { Runners } from "@effect/cluster"
import type { RunnerAddress } from "@effect/cluster"
import { NodeSocket } from "@effect/platform-node"
import { Socket } from "@effect/platform"
import { SocketServer } from "@effect/platform/SocketServer"
import { RpcClient, RpcSerialization } from "@effect/rpc"
import { Data, Effect, Layer, Option, Redacted, type Scope } from "effect"
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import * as Net from "node:net"
import { CLUSTER_PORT_LIMITS } from "../domain/limits.ts"

export type ClusterPortLimits = { readonly [K in keyof typeof CLUSTER_PORT_LIMITS]: number }

const MAGIC = Buffer.from("abclus1\n", "latin1")
const NONCE_BYTES = 32
const MAC_BYTES = 32
const CLIENT_LABEL = "agent-bridge cluster hello v1 client"
const SERVER_LABEL = "agent-bridge cluster hello v1 server"

/** A hello that failed: the reason stays in this process (debug log), the peer learns nothing. */
export class ClusterHelloFailed extends Data.TaggedError("ClusterHelloFailed")<{ readonly reason: string }> {}

const mac = (key: Buffer, label: string, serverNonce: Buffer, clientNonce: Buffer, address: string): Buffer =>
  createHmac("sha256", key).update(label).update(serverNonce).update(clientNonce).update(address, "utf8").digest()

/** The runner address as both ends name it in the hello. */
export const helloAddress = (address: { readonly host: string; readonly port: number }): string => `${address.host}:${address.port}`

const keyOf = (secret: Redacted.Redacted<string>): Buffer => Buffer.from(Redacted.value(secret), "utf8")

/**
 * Exactly `n` bytes from `conn`, read in paused mode (`readable` / `read(n)`): whatever follows
 * stays in the socket's buffer for the next reader; the library's `data` listener then gets it.
 */
const readExactly = (conn: Net.Socket, n: number): Effect.Effect<Buffer, ClusterHelloFailed> =>
  Effect.async<Buffer, ClusterHelloFailed>((resume) => {
    const stop = () => {
      conn.off("readable", onReadable)
      conn.off("end", onEnd)
      conn.off("close", onEnd)
      conn.off("error", onError)
    }
    const onReadable = () => {
      const chunk = conn.read(n) as Buffer | null
      if (chunk === null) return
      stop()
      resume(chunk.length === n ? Effect.succeed(chunk) : Effect.fail(new ClusterHelloFailed({ reason: "closed during the hello" })))
    }
    const onEnd = () => {
      stop()
      resume(Effect.fail(new ClusterHelloFailed({ reason: "closed during the hello" })))
    }
    const onError = (e: Error) => {
      stop()
      resume(Effect.fail(new ClusterHelloFailed({ reason: e.message })))
    }
    conn.on("readable", onReadable)
    conn.once("end", onEnd)
    conn.once("close", onEnd)
    conn.once("error", onError)
    onReadable()
    return Effect.sync(stop)
  })

const write = (conn: Net.Socket, bytes: Buffer): Effect.Effect<void, ClusterHelloFailed> =>
  Effect.async<void, ClusterHelloFailed>((resume) => {
    conn.write(bytes, (e) => resume(e ? Effect.fail(new ClusterHelloFailed({ reason: e.message })) : Effect.void))
  })

const refuse = (reason: string) => Effect.fail(new ClusterHelloFailed({ reason }))

/** The server's side of the hello on a fresh connection to the runner at `self` (`helloAddress`). */
export const serverHello = (conn: Net.Socket, key: Buffer, self: string): Effect.Effect<void, ClusterHelloFailed> =>
  Effect.gen(function* () {
    const serverNonce = randomBytes(NONCE_BYTES)
    yield* write(conn, Buffer.concat([MAGIC, serverNonce]))
    // The magic first: anything else (the RPC protocol itself, a scanner, a flood) is closed at once.
    if (!(yield* readExactly(conn, MAGIC.length)).equals(MAGIC)) return yield* refuse("not a cluster hello")
    const rest = yield* readExactly(conn, NONCE_BYTES + MAC_BYTES)
    const clientNonce = rest.subarray(0, NONCE_BYTES)
    if (!timingSafeEqual(rest.subarray(NONCE_BYTES), mac(key, CLIENT_LABEL, serverNonce, clientNonce, self))) {
      return yield* refuse("wrong proof of the cluster secret")
    }
    yield* write(conn, mac(key, SERVER_LABEL, serverNonce, clientNonce, self))
  })

/** The client's side of the hello on a connection it opened to the runner at `dialed` (`helloAddress`). */
export const clientHello = (conn: Net.Socket, key: Buffer, dialed: string): Effect.Effect<void, ClusterHelloFailed> =>
  Effect.gen(function* () {
    const hello = yield* readExactly(conn, MAGIC.length + NONCE_BYTES)
    if (!hello.subarray(0, MAGIC.length).equals(MAGIC)) return yield* refuse("the peer is no cluster port of this version")
    const serverNonce = hello.subarray(MAGIC.length)
    const clientNonce = randomBytes(NONCE_BYTES)
    yield* write(conn, Buffer.concat([MAGIC, clientNonce, mac(key, CLIENT_LABEL, serverNonce, clientNonce, dialed)]))
    const proof = yield* readExactly(conn, MAC_BYTES)
    if (!timingSafeEqual(proof, mac(key, SERVER_LABEL, serverNonce, clientNonce, dialed))) return yield* refuse("the peer does not hold the cluster secret")
  })

/**
 * `inner` (the library's socket server) with the door: each connection says hello first, within
 * the limits; only then does the RPC server's handler see it.
 */
export const guardSocketServer = (
  inner: SocketServer["Type"],
  self: string,
  secret: Redacted.Redacted<string>,
  limits: ClusterPortLimits = CLUSTER_PORT_LIMITS
): SocketServer["Type"] => {
  const key = keyOf(secret)
  let pending = 0
  let open = 0
  return SocketServer.of({
    address: inner.address,
    run: (handler) =>
      inner.run((socket) =>
        Effect.flatMap(Effect.serviceOption(NodeSocket.NetSocket), (found) => {
          // NodeSocketServer provides each connection's net.Socket to the handler it runs.
          if (Option.isNone(found)) return Effect.dieMessage("the cluster's socket server gave no net socket")
          const conn = found.value
          if (pending >= limits.pendingHandshakes || open >= limits.connections) return Effect.sync(() => void conn.destroy())
          pending++
          open++
          return serverHello(conn, key, self).pipe(
            Effect.timeoutFail({ duration: limits.handshakeMs, onTimeout: () => new ClusterHelloFailed({ reason: "no hello in time" }) }),
            Effect.ensuring(Effect.sync(() => pending--)),
            Effect.matchEffect({
              onFailure: (e) =>
                Effect.sync(() => void conn.destroy()).pipe(
                  Effect.zipRight(Effect.logDebug("cluster port: connection refused", { reason: e.reason, peer: conn.remoteAddress ?? "?" }))
                ),
              onSuccess: () => handler(socket)
            }),
            Effect.ensuring(Effect.sync(() => open--))
          )
        })
      )
  })
}

/**
 * The client protocol to the other replicas (the library's `layerClientProtocol`, with the hello
 * before the RPC protocol starts on each connection, reconnects included).
 */
export const layerClientProtocolWithSecret = (
  secret: Redacted.Redacted<string>,
  limits: ClusterPortLimits = CLUSTER_PORT_LIMITS
): Layer.Layer<Runners.RpcClientProtocol, never, RpcSerialization.RpcSerialization> =>
  Layer.effect(
    Runners.RpcClientProtocol,
    Effect.gen(function* () {
      const serialization = yield* RpcSerialization.RpcSerialization
      const key = keyOf(secret)
      return (address: RunnerAddress.RunnerAddress): Effect.Effect<RpcClient.Protocol["Type"], never, Scope.Scope> =>
        Effect.gen(function* () {
          const socket = yield* NodeSocket.fromDuplex(openWithHello(address, key), { openTimeout: limits.handshakeMs })
          return yield* RpcClient.makeProtocolSocket().pipe(
            Effect.provideService(Socket.Socket, socket),
            Effect.provideService(RpcSerialization.RpcSerialization, serialization)
          )
        })
    })
  )

/** A connection to `address` that has said hello; closed with the scope (each reconnect opens anew). */
const openWithHello = (address: RunnerAddress.RunnerAddress, key: Buffer): Effect.Effect<Net.Socket, Socket.SocketError, Scope.Scope> =>
  Effect.gen(function* () {
    const conn = yield* Effect.acquireRelease(
      Effect.async<Net.Socket, Socket.SocketError>((resume) => {
        const c = Net.createConnection({ host: address.host, port: address.port })
        c.once("connect", () => resume(Effect.succeed(c)))
        // Kept for the socket's life (as the library's makeNet does): an error between the hello and
        // the RPC reader's own listener must not go unheard (an unheard socket error ends the process).
        c.on("error", (cause) => resume(Effect.fail(new Socket.SocketGenericError({ reason: "Open", cause }))))
      }),
      (c) => Effect.sync(() => c.destroy())
    )
    yield* clientHello(conn, key, helloAddress(address)).pipe(Effect.mapError((cause) => new Socket.SocketGenericError({ reason: "Open", cause })))
    return conn
  })

/** The RPC serialization of the cluster port: the library's msgpack, its buffer bounded. */
export const clusterSerialization = (limits: ClusterPortLimits = CLUSTER_PORT_LIMITS) =>
  RpcSerialization.layerMsgPackWith({ useRecords: true, maxBufferSize: limits.frameBytes })
