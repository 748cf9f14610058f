/**
 * The simulator's routes: one handler per Hermes endpoint, and `ROUTES` at the end, the table the app
 * (`app.ts`) dispatches from (one row per route: its name, method, path, handler and, for an optional
 * endpoint, the gate that says whether the build has it). A handler runs after the app has resolved
 * the profile, checked the key and applied any injected fault. A new endpoint is its handler and its
 * row here; its name is then a `SimRoute`, which faults may name.
 */
import type { HttpServerRequest } from "@effect/platform"
import { HttpServerResponse } from "@effect/platform"
import { Deferred, Effect } from "effect"
import { createHash } from "node:crypto"
import { parseInput } from "./directives.ts"
import { isTerminalStatus, makeRun, type SimRun, statusBody } from "./run.ts"
import { makePlan, type Plan } from "./script.ts"
import type { ResolvedSimOptions } from "./options.ts"
import type { SimState } from "./state.ts"
import { fail, json, runNotFound } from "./respond.ts"
import { subscriberStream } from "./subscriber.ts"
import { newRunId } from "./wire.ts"

export interface HandlerContext {
  readonly state: SimState
  readonly profile: string
  readonly request: HttpServerRequest.HttpServerRequest
  /** Starts the run's executor in the simulated process. */
  readonly spawn: (run: SimRun, plan: Plan) => Effect.Effect<void>
  /** Cuts this request's connection. */
  readonly cut: () => void
  /** The JSON body, already parsed (null when empty); `undefined` when it was not JSON. */
  readonly body: unknown
}

type Handler = (ctx: HandlerContext) => Effect.Effect<HttpServerResponse.HttpServerResponse>
type RunHandler = (ctx: HandlerContext, runId: string) => Effect.Effect<HttpServerResponse.HttpServerResponse>

const modelName = (profile: string) => (profile === "default" ? "hermes-agent" : profile)
const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)
const VISIBLE_ASCII = /^[\x21-\x7e]{1,255}$/

/** Key-order-independent JSON, so "the same body" does not depend on how a client orders keys. */
const canonical = (u: unknown): string =>
  Array.isArray(u) ? `[${u.map(canonical).join(",")}]` :
  isObject(u) ? `{${Object.keys(u).sort().map((k) => `${JSON.stringify(k)}:${canonical(u[k])}`).join(",")}}` :
  JSON.stringify(u) ?? "null"

export const health: Handler = ({ state }) =>
  json(200, { status: "ok", platform: "hermes-agent", version: state.options.version })

export const models: Handler = ({ profile }) =>
  json(200, { object: "list", data: [{ id: modelName(profile), object: "model", created: 1_700_000_000, owned_by: "hermes" }] })

export const capabilities: Handler = ({ state, profile }) => {
  const o = state.options
  const run = "/v1/runs/{run_id}"
  const clarifyEndpoint = {
    method: "POST", path: `${run}/clarify`,
    body: o.clarifyResponsesVariant ? { clarify_id: "string", responses: "array" } : { clarify_id: "string", response: "string|null" }
  }
  return json(200, {
    object: "hermes.api_server.capabilities",
    platform: "hermes-agent",
    model: modelName(profile),
    auth: { type: "bearer", required: true },
    // The flags a real build lists beside the runs API (the bridge reads only the runs flags).
    features: {
      chat_completions: true, chat_completions_streaming: true, responses_api: true, responses_streaming: true,
      run_submission: true, run_status: true, run_events_sse: true, run_stop: true, run_approval_response: true,
      tool_progress_events: true, approval_events: true,
      ...(o.steer ? { run_steer: true } : {}),
      ...(o.clarify ? { run_clarify: true } : {}),
      ...(state.isNew ? { runs_idempotency: { supported: true, durable: true, retention_seconds: 86400 } } : {}),
      session_resources: true, model_options: true, session_chat: true, session_chat_streaming: true, session_fork: true,
      session_model_lock: true, skills_api: true,
      admin_config_rw: false, jobs_admin: false, memory_write_api: false, audio_api: false, realtime_voice: false,
      session_continuity_header: "X-Hermes-Session-Id",
      session_key_header: "X-Hermes-Session-Key",
      cors: false
    },
    // A real build names the start endpoint `runs` (there is no `run_submission` endpoint key).
    endpoints: {
      health: { method: "GET", path: "/health" },
      models: { method: "GET", path: "/v1/models" },
      runs: { method: "POST", path: "/v1/runs" },
      run_status: { method: "GET", path: run },
      run_events: { method: "GET", path: `${run}/events` },
      run_stop: { method: "POST", path: `${run}/stop` },
      run_approval: { method: "POST", path: `${run}/approval` },
      ...(o.steer ? { run_steer: { method: "POST", path: `${run}/steer` } } : {}),
      ...(o.clarify ? { run_clarify: clarifyEndpoint } : {})
    }
  })
}

const validHistory = (h: unknown) =>
  h === undefined || (Array.isArray(h) && h.every((m) => isObject(m) && typeof m.role === "string" && typeof m.content === "string"))

const startAnswer = (state: SimState, run: SimRun, replayed: boolean) => {
  const extra = state.isNew ? { replayed } : {}
  const headers: Record<string, string> = replayed ? { "idempotency-replayed": "true" } : {}
  return state.options.startReturnsStatus
    ? json(202, { ...statusBody(run, state.isNew, state.options.statusShowsApproval), ...extra }, headers)
    : json(202, { run_id: run.id, status: "started", ...extra }, headers)
}

export const start: Handler = (ctx) =>
  Effect.gen(function* () {
    const { state, profile, request, body } = ctx
    if (state.draining) return yield* fail(503, "gateway_draining", "Gateway is draining for shutdown", { retryAfter: 1 })
    // Hermes's own start errors carry no code.
    if (body === undefined || !isObject(body)) return yield* fail(400, null, "Invalid JSON")
    if (typeof body.input !== "string") return yield* fail(400, null, "Missing 'input' field")
    if (!validHistory(body.conversation_history)) {
      return yield* fail(400, "invalid_conversation_history", "conversation_history must be a list of {role, content}", { param: "conversation_history" })
    }
    const sessionKey = request.headers["x-hermes-session-key"]
    if (sessionKey !== undefined && (sessionKey.length > 256 || /[\r\n\0]/.test(sessionKey))) {
      return yield* fail(400, "invalid_session_key", "X-Hermes-Session-Key is invalid")
    }
    const idemKey = state.isNew ? request.headers["idempotency-key"] : undefined
    const fingerprint = canonical(body)
    if (idemKey !== undefined) {
      if (!VISIBLE_ASCII.test(idemKey)) return yield* fail(400, "invalid_idempotency_key", "Idempotency-Key must be 1-255 visible ASCII characters")
      const seen = state.idempotencyLookup(profile, idemKey, fingerprint)
      if (seen._tag === "Conflict") return yield* fail(409, "idempotency_key_conflict", "Idempotency-Key was used with a different request body")
      if (seen._tag === "Replay") {
        const prior = state.runs.get(seen.runId)
        if (prior !== undefined) return yield* startAnswer(state, prior, true)
      }
    }
    if (state.liveRuns() >= state.options.maxConcurrentRuns) {
      return yield* fail(429, "rate_limit_exceeded", `Too many concurrent runs (max ${state.options.maxConcurrentRuns})`, { retryAfter: 1, type: "rate_limit_error" })
    }
    const now = Date.now()
    const id = newRunId()
    // Without a session id or key, the run is its own session.
    const sessionId = typeof body.session_id === "string" ? body.session_id
      : sessionKey !== undefined ? `sess_${createHash("sha256").update(`${profile}\0${sessionKey}`).digest("hex").slice(0, 24)}`
      : id
    const run = yield* makeRun({
      id, profile, input: body.input, sessionId,
      model: typeof body.model === "string" ? body.model : modelName(profile),
      now, visibleAt: now + state.options.registrationDelayMs
    })
    state.runs.set(run.id, run)
    state.notePeak()
    if (idemKey !== undefined) state.idempotencyStore(profile, idemKey, fingerprint, run.id)
    const plan = makePlan(parseInput(body.input), { clarifyAvailable: state.options.clarify && body.clarify === true, subagentEvents: state.options.subagentEvents })
    run.dropAt = plan.dropAfterFrames
    yield* ctx.spawn(run, plan)
    return yield* startAnswer(state, run, false)
  })

export const status: RunHandler = ({ state, profile }, runId) => {
  const run = state.find(profile, runId)
  return run === undefined ? runNotFound() : json(200, statusBody(run, state.isNew, state.options.statusShowsApproval))
}

/** Hermes waits up to 1 s for a just-started run to register before answering 404. */
const REGISTRATION_WAIT_MS = 1000

export const events: RunHandler = (ctx, runId) =>
  Effect.gen(function* () {
    const { state, profile, request } = ctx
    const deadline = Date.now() + REGISTRATION_WAIT_MS
    let run = state.find(profile, runId)
    if (run === undefined && state.options.unknownRunEventsAtOnce) return yield* runNotFound()
    while ((run === undefined || Date.now() < run.visibleAt) && Date.now() < deadline) {
      yield* Effect.sleep(20)
      run = state.find(profile, runId)
    }
    if (run === undefined || Date.now() < run.visibleAt || run.eventsLost) return yield* runNotFound()
    // Older builds: the buffer is gone once a consumer left. A second concurrent subscriber is
    // let in, and shares the first one's queue (`subscriber.ts`).
    if (!state.isNew && run.bufferDropped) return yield* runNotFound()
    const header = request.headers["last-event-id"]
    const afterSeq = state.isNew && header !== undefined && /^\d+$/.test(header.trim()) ? Number(header.trim()) : null
    return HttpServerResponse.stream(subscriberStream(state, run, afterSeq, ctx.cut), {
      contentType: "text/event-stream",
      headers: { "cache-control": "no-cache", "x-accel-buffering": "no" }
    })
  })

const APPROVAL_CHOICES: Readonly<Record<string, string>> = {
  once: "once", session: "session", always: "always", deny: "deny", approve: "once", approved: "once", allow: "once"
}

/**
 * Runs whose approval this route has answered. Hermes keeps a run's approval session once it asked,
 * so a second answer finds the session with nothing pending (`approval_not_pending`); only a run
 * that never asked has no session (`approval_not_active`). Kept here, beside the route, so the
 * run's own record and its executor stay as they are.
 */
const answeredApproval = new WeakSet<SimRun>()

export const approval: RunHandler = ({ state, profile, body }, runId) =>
  Effect.gen(function* () {
    const run = state.find(profile, runId)
    if (run === undefined) return yield* runNotFound()
    const raw = isObject(body) && typeof body.choice === "string" ? body.choice.toLowerCase() : ""
    const choice = APPROVAL_CHOICES[raw]
    if (choice === undefined) return yield* fail(400, "invalid_approval_choice", "choice must be one of once, session, always, deny", { param: "choice" })
    const pending = run.approval
    if (pending === null) {
      return answeredApproval.has(run)
        ? yield* fail(409, "approval_not_pending", "No approval is pending for this run")
        : yield* fail(409, "approval_not_active", "No approval session is active for this run")
    }
    // Older builds (0.20.1 included, which sends one) never read `request_id` from the body.
    if (state.isNew && isObject(body) && typeof body.request_id === "string" && body.request_id !== pending.request_id) {
      return yield* fail(409, "approval_not_pending", "That approval request is not pending")
    }
    yield* Deferred.succeed(pending.answer, choice)
    answeredApproval.add(run)
    return yield* json(200, { object: "hermes.run.approval_response", run_id: run.id, choice, resolved: 1 })
  })

export const steer: RunHandler = ({ state, profile, body }, runId) =>
  Effect.gen(function* () {
    const run = state.find(profile, runId)
    if (run === undefined) return yield* runNotFound()
    const text = isObject(body) ? [body.input, body.message, body.text].find((v) => typeof v === "string" && v !== "") : undefined
    if (typeof text !== "string") return yield* fail(400, "missing_input", "Missing 'input' field", { param: "input" })
    if (run.status !== "running") return yield* fail(409, "run_not_accepting_steer", `Run is ${run.status}, not running`)
    // After the final answer a steer is kept for the caller as `pending_steer`.
    if (run.answered) run.pendingSteer = run.pendingSteer === null ? text : `${run.pendingSteer}\n${text}`
    else run.steers.push(text)
    yield* state.publish(run, "run.steered", { accepted: true })
    return yield* json(200, { object: "hermes.run.steer", run_id: run.id, accepted: true })
  })

export const stop: RunHandler = ({ state, profile }, runId) =>
  Effect.gen(function* () {
    const run = state.find(profile, runId)
    if (run === undefined) return yield* runNotFound()
    if (isTerminalStatus(run.status)) {
      // Older builds look for the live task, and a finished run has none.
      return state.isNew ? yield* json(200, { run_id: run.id, status: run.status }) : yield* runNotFound()
    }
    run.status = "stopping"
    run.updatedAt = Date.now()
    // The status says `run.stopping`; no such frame is published.
    run.lastEvent = "run.stopping"
    yield* Deferred.succeed(run.stop, undefined)
    return yield* json(200, { run_id: run.id, status: "stopping" })
  })

export const clarify: RunHandler = ({ state, profile, body }, runId) =>
  Effect.gen(function* () {
    const run = state.find(profile, runId)
    if (run === undefined) return yield* runNotFound()
    if (!isObject(body) || typeof body.clarify_id !== "string") {
      return yield* fail(400, "invalid_clarify_response", "clarify_id is required", { param: "clarify_id" })
    }
    let answer: string | null
    if (state.options.clarifyResponsesVariant) {
      if (!Array.isArray(body.responses) || !body.responses.every((r) => typeof r === "string")) {
        return yield* fail(400, "invalid_clarify_response", "responses must be a list of strings", { param: "responses" })
      }
      answer = body.responses.join(", ")
    } else {
      if (!(typeof body.response === "string" || body.response === null)) {
        return yield* fail(400, "invalid_clarify_response", "response must be a string or null", { param: "response" })
      }
      answer = body.response
    }
    const pending = run.clarification
    if (pending === null || pending.clarify_id !== body.clarify_id) {
      return yield* fail(409, "clarify_not_pending", "That clarification is not pending")
    }
    yield* Deferred.succeed(pending.answer, answer)
    return yield* json(200, { object: "hermes.run.clarify_response", run_id: run.id, clarify_id: pending.clarify_id, resolved: true })
  })

const RUN = "([^/]+)"
const runPath = (tail = "") => new RegExp(`^/v1/runs/${RUN}${tail}$`)

interface RouteRow {
  readonly name: string
  readonly method: "GET" | "POST"
  /** The path after the profile prefix; a run's id is the first group. */
  readonly path: RegExp
  /** The run's id is "" on a route without one. */
  readonly handler: (ctx: HandlerContext, runId: string) => Effect.Effect<HttpServerResponse.HttpServerResponse>
  /** Whether this build has the route at all (absent: every build); one without answers a plain 404. */
  readonly gate?: (o: ResolvedSimOptions) => boolean
  /** The route answers without the bearer key. */
  readonly open?: true
}

export const ROUTES = [
  { name: "health", method: "GET", path: /^\/(?:v1\/)?health$/, handler: health, open: true },
  { name: "models", method: "GET", path: /^\/v1\/models$/, handler: models },
  { name: "capabilities", method: "GET", path: /^\/v1\/capabilities$/, handler: capabilities },
  { name: "start", method: "POST", path: /^\/v1\/runs$/, handler: start },
  { name: "status", method: "GET", path: runPath(), handler: status },
  { name: "events", method: "GET", path: runPath("/events"), handler: events },
  { name: "approval", method: "POST", path: runPath("/approval"), handler: approval },
  { name: "steer", method: "POST", path: runPath("/steer"), handler: steer, gate: (o) => o.steer },
  { name: "stop", method: "POST", path: runPath("/stop"), handler: stop },
  { name: "clarify", method: "POST", path: runPath("/clarify"), handler: clarify, gate: (o) => o.clarify }
] as const satisfies ReadonlyArray<RouteRow>

/** A route's name, as faults name it. */
export type SimRoute = (typeof ROUTES)[number]["name"]
