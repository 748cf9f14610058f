/**
 * A small HTTP peer that answers like the real Hermes 0.20 API server where the simulator does not
 * (yet): capabilities without `run_steer` / `run_clarify` / `runs_idempotency`, aiohttp's plain-text
 * `404: Not Found` for a route the build lacks, JSON `run_not_found` for an unknown run, frames
 * with no `id:` line, `approval.request` without `request_id`. Each run is scripted by the test:
 * the frames of its one event stream and the status `GET /v1/runs/{id}` answers. Loopback only.
 */
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { Effect, Option, Redacted } from "effect"
import type { HermesProfile } from "../../../src/hermes/client/HermesClient.ts"

export const KEY = "hermes-020-double-key"

const FEATURES = {
  chat_completions: true, responses_api: true, run_submission: true, run_status: true, run_events_sse: true,
  run_stop: true, run_approval_response: true, tool_progress_events: true, approval_events: true,
  session_key_header: "X-Hermes-Session-Key"
}

export interface ScriptedRun {
  /** Frames (JSON objects) the first subscriber gets, in order; then the stream ends (EOF). */
  readonly frames: ReadonlyArray<Record<string, unknown>>
  /** Whether the stream ends with `: stream closed` after the frames (false: cut, as a drop). */
  readonly closed?: boolean
  /** The body of `GET /v1/runs/{id}`. */
  status: Record<string, unknown>
}

export interface Recorded {
  readonly method: string
  readonly path: string
  readonly body: string
}

export interface Hermes020 {
  readonly url: string
  readonly profile: HermesProfile
  readonly runs: Map<string, ScriptedRun>
  readonly requests: Array<Recorded>
  /** Event-stream connections opened per run id. */
  readonly subscribers: Map<string, number>
}

const json = (res: http.ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8" })
  res.end(JSON.stringify(body))
}
const notFoundRun = (res: http.ServerResponse) =>
  json(res, 404, { error: { message: "Run not found", type: "invalid_request_error", param: null, code: "run_not_found" } })
const plainNotFound = (res: http.ServerResponse) => {
  res.writeHead(404, { "content-type": "text/plain; charset=utf-8" })
  res.end("404: Not Found")
}

const handle = (state: Hermes020, req: http.IncomingMessage, body: string, res: http.ServerResponse) => {
  const path = (req.url ?? "/").split("?")[0] ?? "/"
  state.requests.push({ method: req.method ?? "GET", path, body })
  if (req.headers.authorization !== `Bearer ${KEY}` && path !== "/health") {
    return json(res, 401, { error: { message: "Invalid gateway API key (API_SERVER_KEY)", type: "gateway_auth_error", code: "gateway_auth_failed" } })
  }
  if (path === "/v1/capabilities") return json(res, 200, { object: "hermes.capabilities", features: FEATURES, endpoints: {} })
  const m = /^\/v1\/runs\/([^/]+)(\/[a-z]+)?$/.exec(path)
  if (m === null) return plainNotFound(res)
  const [, id = "", tail] = m
  const run = state.runs.get(id)
  switch (tail) {
    case undefined:
      return run === undefined ? notFoundRun(res) : json(res, 200, { object: "hermes.run", run_id: id, ...run.status })
    case "/events": {
      const seen = state.subscribers.get(id) ?? 0
      state.subscribers.set(id, seen + 1)
      // A reconnect after the subscriber left is 404, as on the real build.
      if (run === undefined || seen > 0) return notFoundRun(res)
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
      for (const f of run.frames) res.write(`data: ${JSON.stringify(f)}\n\n`)
      if (run.closed === true) res.write(": stream closed\n\n")
      return res.end()
    }
    case "/approval":
    case "/stop":
      return run === undefined ? notFoundRun(res) : json(res, 200, { run_id: id, status: "ok" })
    default:
      // `/steer`, `/clarify`: routes this build does not have.
      return plainNotFound(res)
  }
}

/** Starts the double on 127.0.0.1 for the scope. */
export const hermes020 = Effect.acquireRelease(
  Effect.async<{ readonly server: http.Server; readonly state: Hermes020 }>((resume) => {
    const partial = { runs: new Map<string, ScriptedRun>(), requests: [] as Array<Recorded>, subscribers: new Map<string, number>() }
    let state: Hermes020 | undefined
    const server = http.createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (c: Buffer) => chunks.push(c))
      req.on("end", () => state !== undefined && handle(state, req, Buffer.concat(chunks).toString("utf8"), res))
    })
    server.listen(0, "127.0.0.1", () => {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      state = {
        ...partial,
        url,
        profile: { name: "default", agent: "hermes", agentId: "hermes", baseUrl: url, key: Option.some(Redacted.make(KEY)) }
      }
      resume(Effect.succeed({ server, state }))
    })
  }),
  ({ server }) => Effect.async<void>((resume) => {
    server.closeAllConnections()
    server.close(() => resume(Effect.void))
  })
).pipe(Effect.map(({ state }) => state))
