/**
 * The simulator's HTTP front: resolves the profile from the path (`/` or `/p/<profile>`), records
 * the request, refuses any `Origin` with a bare 403 as Hermes's CORS check does, answers a route the
 * build lacks with the framework's plain-text 404, applies injected
 * faults, checks the profile's bearer key (every route but health), reads the JSON body (10 MB
 * limit, 413 above) and dispatches to the route's handler (one table: `ROUTES` in `handlers.ts`).
 */
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Effect } from "effect"
import * as H from "./handlers.ts"
import { defaultCode, fail, json } from "./respond.ts"
import type { SimRun } from "./run.ts"
import type { Plan } from "./script.ts"
import type { ResolvedSimOptions } from "./options.ts"
import type { RecordedRequest, SimFault, SimState } from "./state.ts"

export interface ListenerSpec {
  /** Profiles this listener serves. */
  readonly served: ReadonlyArray<string>
  /** The profile at `/` (null: none). */
  readonly root: string | null
  /** Whether `/p/<profile>` paths are served. */
  readonly multiplex: boolean
}

export interface AppEnv {
  readonly state: SimState
  readonly spawn: (run: SimRun, plan: Plan) => Effect.Effect<void>
}

const BODY_LIMIT = 10 * 1024 * 1024

/** The route for this method and path among those the build has (`H.ROUTES`), or the methods the path takes. */
const match = (method: string, path: string, o: ResolvedSimOptions) => {
  const allowed: Array<string> = []
  for (const r of H.ROUTES) {
    const m = r.path.exec(path)
    if (m === null || ("gate" in r && !r.gate(o))) continue
    if (r.method !== method) {
      allowed.push(r.method)
      continue
    }
    return { _tag: "Route" as const, route: r, runId: m[1] === undefined ? null : decodeURIComponent(m[1]) }
  }
  return allowed.length > 0 ? { _tag: "WrongMethod" as const, allowed } : null
}

/**
 * What Hermes's web framework (aiohttp) answers before any handler runs: plain text, not Hermes's
 * JSON envelope, for a route the build does not have (also `/steer` on a build without steering)
 * and for a wrong method.
 */
const plainNotFound = () => HttpServerResponse.text("404: Not Found", { status: 404 })
const plainWrongMethod = (allowed: ReadonlyArray<string>) =>
  HttpServerResponse.text("405: Method Not Allowed", { status: 405, headers: { allow: allowed.join(",") } })

const faultAnswer = (fault: SimFault, cut: () => void) =>
  Effect.gen(function* () {
    if (fault.delayMs !== undefined) yield* Effect.sleep(fault.delayMs)
    if (fault.destroy === true) {
      cut()
      return HttpServerResponse.empty({ status: 500 })
    }
    if (fault.status === undefined) return null
    const retry = fault.retryAfterSeconds === undefined ? {} : { "retry-after": String(fault.retryAfterSeconds) }
    if (fault.bare === true) return HttpServerResponse.empty({ status: fault.status, headers: retry })
    return yield* fail(fault.status, fault.code ?? defaultCode(fault.status), fault.message ?? "Injected fault", {
      retryAfter: fault.retryAfterSeconds
    })
  })

const readBody = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function* () {
    const length = Number(request.headers["content-length"] ?? "0")
    if (length > BODY_LIMIT) return { tooLarge: true, body: undefined as unknown }
    const text = yield* request.text.pipe(Effect.option)
    if (text._tag === "None" || Buffer.byteLength(text.value) > BODY_LIMIT) return { tooLarge: true, body: undefined as unknown }
    if (text.value.trim() === "") return { tooLarge: false, body: null as unknown }
    try {
      return { tooLarge: false, body: JSON.parse(text.value) as unknown }
    } catch {
      return { tooLarge: false, body: undefined as unknown }
    }
  })

export const makeApp = (env: AppEnv, listener: ListenerSpec) =>
  Effect.gen(function* () {
    const { state } = env
    const request = yield* HttpServerRequest.HttpServerRequest
    const url = new URL(request.url, "http://sim.invalid")
    let path = url.pathname
    let profile: string | null = listener.root
    const prefixed = /^\/p\/([^/]+)(\/.*)?$/.exec(path)
    if (listener.multiplex && prefixed !== null) {
      const name = decodeURIComponent(prefixed[1] ?? "")
      profile = listener.served.includes(name) && name !== "default" ? name : null
      path = prefixed[2] ?? "/"
    }
    const recorded: RecordedRequest = { method: request.method, path: url.pathname, profile, headers: { ...request.headers }, body: undefined, at: Date.now() }
    state.record(recorded)
    // Hermes's CORS middleware refuses an Origin outside its allowlist with a bare 403.
    if (request.headers["origin"] !== undefined) return HttpServerResponse.empty({ status: 403 })
    const found = match(request.method, path, state.options)
    if (found === null) return plainNotFound()
    if (found._tag === "WrongMethod") return plainWrongMethod(found.allowed)
    if (profile === null) return yield* fail(404, "profile_not_found", "Unknown profile")
    const key = state.options.profiles.find((p) => p.name === profile)?.key
    // A reset, not a close: a close would still deliver every buffered byte (and a reader that
    // stopped reading would never notice); a dropped link or a cut-off reader loses them.
    const cut = () => {
      const socket = NodeHttpServerRequest.toServerResponse(request).socket
      if (socket !== null && !socket.destroyed) socket.resetAndDestroy()
    }

    const fault = state.takeFault(found.route.name, profile)
    if (fault !== undefined) {
      const answer = yield* faultAnswer(fault, cut)
      if (answer !== null) return answer
    }
    if (!("open" in found.route) && request.headers["authorization"] !== `Bearer ${key}`) {
      // The two builds' 401 bodies, each without `param`.
      return state.options.authCode === "gateway_auth_failed"
        ? json(401, { error: { message: "Invalid gateway API key (API_SERVER_KEY)", type: "gateway_auth_error", code: "gateway_auth_failed" } })
        : json(401, { error: { message: "Invalid API key", type: "invalid_request_error", code: "invalid_api_key" } })
    }
    const { tooLarge, body } = request.method === "POST" ? yield* readBody(request) : { tooLarge: false, body: null }
    if (tooLarge) return yield* fail(413, "request_too_large", "Request body exceeds 10 MB")
    recorded.body = body
    const ctx: H.HandlerContext = { state, profile, request, spawn: env.spawn, cut, body }
    return yield* found.route.handler(ctx, found.runId ?? "")
  })
