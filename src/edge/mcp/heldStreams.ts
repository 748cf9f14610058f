/**
 * What the MCP endpoints wrap around a response whose body is an event stream held open (a 2025
 * session's GET stream, a Tasks listen): the prelude a GET stream starts with, and the client's
 * open-stream quota (`limits.open_streams_per_client`), taken before the SDK sees the request and
 * given back when the stream ends, however it ends.
 */
import { Effect, Option, Runtime } from "effect"
import { type BridgeError, errorCode, errorStatus } from "../../domain/errors.ts"
import type { ClientQuotasShape } from "../../services/quotas/ClientQuotas.ts"
import { errorBody } from "../http/responses.ts"

/**
 * What a session's GET stream starts with: a comment and the reconnection delay. Nothing is sent on
 * that stream until the server has something to say, and the HTTP layer sends the headers only with
 * the first bytes, so without it a client saw the stream open at the first keep-alive, 15 s later.
 * It carries no event (no data): clients of every 2025 revision ignore it.
 */
export const STREAM_PRELUDE = ": stream open\nretry: 2000\n\n"

export const withStreamPrelude = (res: Response): Response => {
  if (res.body === null || !(res.headers.get("content-type") ?? "").startsWith("text/event-stream")) return res
  const prelude = new TextEncoder().encode(STREAM_PRELUDE)
  const reader = res.body.getReader()
  const body = new ReadableStream<Uint8Array>({
    start: (controller) => controller.enqueue(prelude),
    pull: async (controller) => {
      const { done, value } = await reader.read()
      if (done) controller.close()
      else controller.enqueue(value)
    },
    cancel: (reason) => reader.cancel(reason)
  })
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers })
}

/** A refusal before the SDK sees the request, as every refusal of the daemon: `{"error":{"code","message"}}`. */
const refusal = (e: BridgeError) =>
  new Response(JSON.stringify(errorBody(errorCode(e), e.message)), {
    status: errorStatus(e),
    headers: { "content-type": "application/json" }
  })

/**
 * `res` with `release` run once when its event stream ends (read to its end, cancelled by the client
 * going away, or failed); at once when it is no event stream (a refusal, a JSON answer).
 */
const releasedWithStream = (res: Response, release: () => void): Response => {
  if (res.body === null || !(res.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
    release()
    return res
  }
  let released = false
  const once = () => {
    if (released) return
    released = true
    release()
  }
  const reader = res.body.getReader()
  const body = new ReadableStream<Uint8Array>({
    pull: async (controller) => {
      try {
        const { done, value } = await reader.read()
        if (done) {
          once()
          controller.close()
        } else controller.enqueue(value)
      } catch (e) {
        once()
        controller.error(e)
      }
    },
    cancel: (reason) => {
      once()
      return reader.cancel(reason)
    }
  })
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers })
}
/**
 * Serves a request whose answer may be an event stream held open within the client's open-stream
 * quota: refused with `bridge.quota_exceeded` before `serve` runs, else the slot is given back when
 * the stream ends (at once for an answer that is no stream, or when `serve` fails).
 */
export const streamQuotaGate =
  <R>(quotas: Option.Option<ClientQuotasShape>, runtime: Runtime.Runtime<R>) =>
  (client: string, what: string, serve: Effect.Effect<Response>): Effect.Effect<Response> =>
    Option.match(quotas, {
      onNone: () => serve,
      onSome: (q) =>
        Effect.matchEffect(q.openStream(client, what), {
          onFailure: (e) => Effect.succeed(refusal(e)),
          onSuccess: (release) =>
            serve.pipe(
              Effect.onExit((exit) => (exit._tag === "Success" ? Effect.void : release)),
              Effect.map((res) => releasedWithStream(res, () => Runtime.runSync(runtime)(release)))
            )
        })
    })
