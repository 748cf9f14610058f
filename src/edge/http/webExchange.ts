/**
 * The MCP SDK serves web `Request`s and answers web `Response`s; the listener is Node's. The
 * platform's own conversions (`HttpServerRequest.toWeb`, `HttpServerResponse.fromWeb`) pipe every
 * body through an Effect `Stream` and a web `ReadableStream`, which cost more than the rest of a
 * small tool call. Here each direction takes the short way, and the SDK still decides every answer:
 *
 * - a POST body is read from the Node request once; when it is JSON, the SDK gets a body-less
 *   `Request` and the parsed value (`parsedBody`, its own option for a body already read), so it
 *   neither clones nor re-reads nor re-parses it. Anything else (empty, not JSON, not UTF-8 text,
 *   over the SDK's size limit) is handed over as the bytes that came, so the SDK answers it exactly
 *   as it always did (its parse errors, its 413 after the first 4 MiB);
 * - a JSON (or empty) answer is sent as one buffer; so is a stream (SSE) that has ended by the time
 *   its bytes are read (a 2025 session's answer to one call: one event, then the SDK closes it), since
 *   piping a web stream (`Readable.fromWeb`, `pipeline`, an abort signal, one socket write per chunk)
 *   cost about a fifth of such a call. A stream still open after its queued bytes (a wait with
 *   progress, a GET stream) is sent as it comes, what was read first included.
 */
import { HttpIncomingMessage, HttpServerError, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { NodeHttpServerRequest } from "@effect/platform-node"
import { DEFAULT_MAX_REQUEST_BODY_SIZE } from "@modelcontextprotocol/server"
import { Effect, Option } from "effect"
import { IncomingMessage } from "node:http"
import { Readable } from "node:stream"

/** What the SDK is handed for one request: the request, and its body when it was read as JSON. */
export interface McpRequest {
  readonly request: Request
  /** The parsed JSON body; `undefined` when the body (if any) is in `request` itself. */
  readonly parsedBody?: unknown
}

export interface BodyRead {
  readonly bytes: Buffer
  /** More than `limit` bytes came: `bytes` holds the first of them only. */
  readonly over: boolean
}

/** Reads a Node request body, stopping once it holds more than `limit` bytes (the rest is left unread). */
const readUpTo = (req: HttpServerRequest.HttpServerRequest, message: IncomingMessage, limit: number) =>
  Effect.async<BodyRead, HttpServerError.RequestError>((resume) => {
    const chunks: Array<Buffer> = []
    let size = 0
    const cleanup = () => {
      message.off("data", onData)
      message.off("end", onEnd)
      message.off("error", onError)
    }
    const finish = (over: boolean) => {
      cleanup()
      if (over) message.pause()
      resume(Effect.succeed({ bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks), over }))
    }
    const onData = (chunk: Buffer) => {
      chunks.push(chunk)
      size += chunk.length
      if (size > limit) finish(true)
    }
    const onEnd = () => finish(false)
    const onError = (cause: Error) => {
      cleanup()
      resume(Effect.fail(new HttpServerError.RequestError({ request: req, reason: "Transport", cause })))
    }
    message.on("data", onData)
    message.on("end", onEnd)
    message.on("error", onError)
    return Effect.sync(cleanup)
  })

/**
 * A request's body, at most `limit` bytes of it: from Node's request, the rest left unread (the
 * server discards it once the answer is sent, so the client reads the answer rather than a reset);
 * from any other request, the platform's read under the same limit.
 */
export const readBodyUpTo = (req: HttpServerRequest.HttpServerRequest, limit: number): Effect.Effect<BodyRead, HttpServerError.RequestError> => {
  const source: unknown = NodeHttpServerRequest.toIncomingMessage(req)
  if (source instanceof IncomingMessage) return readUpTo(req, source, limit)
  return req.arrayBuffer.pipe(
    HttpIncomingMessage.withMaxBodySize(Option.some(limit)),
    Effect.map((buf): BodyRead => ({ bytes: Buffer.from(buf), over: false })),
    // The platform says only that the read failed; under a size limit that is taken as "over".
    Effect.orElseSucceed((): BodyRead => ({ bytes: Buffer.alloc(0), over: true }))
  )
}

/** The JSON value of a body the SDK would parse the same way, or `undefined` to leave it to the SDK. */
const parsedJson = (bytes: Buffer): unknown => {
  // A BOM is dropped by the SDK's decoder and not by this one: those bodies go to the SDK as they are.
  if (bytes.length === 0 || bytes[0] === 0xef) return undefined
  try {
    return JSON.parse(bytes.toString("utf8"))
  } catch {
    return undefined
  }
}

/**
 * The SDK's view of one MCP request. A request that does not come from Node's listener (or whose URL
 * cannot be formed) takes the platform's general conversion.
 */
export const toMcpRequest = (req: HttpServerRequest.HttpServerRequest): Effect.Effect<McpRequest, HttpServerError.RequestError> => {
  const source: unknown = NodeHttpServerRequest.toIncomingMessage(req)
  const url = HttpServerRequest.toURL(req)
  if (!(source instanceof IncomingMessage) || Option.isNone(url)) {
    return Effect.map(HttpServerRequest.toWeb(req), (request) => ({ request }))
  }
  const init = { method: req.method, headers: req.headers }
  if (req.method !== "POST") return Effect.succeed({ request: new Request(url.value, init) })
  return Effect.map(readUpTo(req, source, DEFAULT_MAX_REQUEST_BODY_SIZE), ({ bytes, over }) => {
    const parsedBody = over ? undefined : parsedJson(bytes)
    return parsedBody === undefined
      ? { request: new Request(url.value, { ...init, body: bytes as Uint8Array<ArrayBuffer> }) }
      : { request: new Request(url.value, init), parsedBody }
  })
}

const isJson = (contentType: string | null) => contentType !== null && /^application\/json\b/i.test(contentType)

/** The SDK's answer as the listener's response. */
export const fromMcpResponse = (res: Response): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
  // The SDK sets no cookies; should a response carry one, the platform's conversion keeps it.
  if (res.headers.has("set-cookie")) return Effect.succeed(HttpServerResponse.fromWeb(res))
  const headers: Record<string, string> = {}
  res.headers.forEach((value, name) => {
    headers[name] = value
  })
  const options = { status: res.status, statusText: res.statusText, headers }
  if (res.body === null) return Effect.succeed(HttpServerResponse.empty(options))
  if (isJson(res.headers.get("content-type"))) {
    return Effect.map(Effect.promise(() => res.arrayBuffer()), (buf) => HttpServerResponse.uint8Array(new Uint8Array(buf), options))
  }
  return Effect.map(readIfEnded(res.body), (read) =>
    read._tag === "Ended"
      ? HttpServerResponse.uint8Array(read.bytes, options)
      : // Still open: piped as it comes; a closed connection destroys the pipe, which cancels the stream.
        HttpServerResponse.raw(Readable.fromWeb(read.stream as import("node:stream/web").ReadableStream), options))
}

type StreamRead =
  | { readonly _tag: "Ended"; readonly bytes: Uint8Array }
  | { readonly _tag: "Open"; readonly stream: ReadableStream<Uint8Array> }

const PENDING = Symbol("pending")
/** The next chunk if the stream has one (or has ended) before the event loop's next turn; else PENDING. */
const readNow = (next: Promise<ReadableStreamReadResult<Uint8Array>>) =>
  Promise.race([next, new Promise<typeof PENDING>((resolve) => setImmediate(resolve, PENDING))])

/**
 * Waits for a stream's first chunk, then takes every chunk that is already there: when the stream has
 * ended by then, its bytes in one buffer; else a stream of the same bytes (what was read, then the
 * rest as it comes; cancelling it cancels the original). Interrupted (the client went away), it
 * cancels the stream it is reading, as a destroyed pipe does.
 */
const readIfEnded = (body: ReadableStream<Uint8Array>) =>
  Effect.async<StreamRead>((resume) => {
    const reader = body.getReader()
    readQueued(reader).then((read) => resume(Effect.succeed(read)), (e: unknown) => resume(Effect.die(e)))
    return Effect.sync(() => void reader.cancel().catch(() => undefined))
    // The platform serves a request uninterruptibly and makes only its pipe of a stream interruptible
    // (a client's close interrupts it); this wait is that pipe's first part, so it is too.
  }).pipe(Effect.interruptible)

const readQueued = async (reader: ReadableStreamDefaultReader<Uint8Array>): Promise<StreamRead> => {
  const chunks: Array<Uint8Array> = []
  let next = reader.read()
  let step: ReadableStreamReadResult<Uint8Array> | typeof PENDING = await next
  while (step !== PENDING && !step.done) {
    chunks.push(step.value)
    next = reader.read()
    step = await readNow(next)
  }
  if (step !== PENDING) return { _tag: "Ended", bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks) }
  let pending: Promise<ReadableStreamReadResult<Uint8Array>> | undefined = next
  const stream = new ReadableStream<Uint8Array>({
    start: (controller) => {
      for (const chunk of chunks) controller.enqueue(chunk)
    },
    pull: async (controller) => {
      const read = pending ?? reader.read()
      pending = undefined
      const { done, value } = await read
      if (done) controller.close()
      else controller.enqueue(value)
    },
    cancel: (reason) => reader.cancel(reason)
  })
  return { _tag: "Open", stream }
}
