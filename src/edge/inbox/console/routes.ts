/**
 * The operator's console under `/inbox` (same sign-in, security headers, CSRF and same-origin rules
 * as the inbox; every page works without the script, which only keeps it current):
 *
 *   GET  /inbox/runs                 live and recent runs; ?client= ?status= ?agent= filter   (session)
 *   GET  /inbox/runs/:id             one run: facts, output window (?offset=), events (?since=) (session)
 *   POST /inbox/runs/:id/stop        the operator's stop                                        (session + CSRF)
 *   GET  /inbox/clients              clients with scopes, use, live runs, 24 h runs and tokens  (session)
 *   POST /inbox/clients/:name        action=revoke | rotate (the new key is shown once)          (session + CSRF)
 *   GET  /inbox/console/events       Server-Sent Events: the console's version changed          (session)
 */
import { HttpServerRequest } from "@effect/platform"
import type { Clients } from "../../../services/auth/Clients.ts"
import type { StopRequests } from "../../../services/console/stopRequests.ts"
import type { Ledger } from "../../../services/runs/Ledger.ts"
import { Clock, Effect, Option } from "effect"
import { type BridgeError, errorStatus, errorText } from "../../../domain/errors.ts"
import { Auth } from "../../../services/auth/Auth.ts"
import { Caller } from "../../../request/Caller.ts"
import { OperatorStops } from "../../../services/console/OperatorStops.ts"
import type { Inbox } from "../../../services/inbox/Inbox.ts"
import { Runs } from "../../../services/runs/Runs.ts"
import { signInResponse } from "../actions.ts"
import { InboxWeb } from "../InboxWeb.ts"
import { chromeFor, currentSession, type FormTooLarge, htmlResponse, methodNotAllowed, pendingRows, readForm, type Response, seeOther, type SignedIn, textResponse } from "../respond.ts"
import { csrfMatches, sameOriginPost, SESSION_COOKIE, withoutCookie } from "../security.ts"
import { messagePage } from "../views/card.ts"
import { consoleEventsResponse } from "./events.ts"
import { isTerminal } from "../../../domain/runs/view.ts"
import { parseRunFilter, readConsole, readReplicas } from "./read.ts"
import { clientsPage, newKeyPage, runHref, runPage, runsPage } from "./views.ts"

export type ConsoleRequirements = HttpServerRequest.HttpServerRequest | InboxWeb | Inbox | Ledger | StopRequests | Clients | Runs | Auth | OperatorStops

type Handler = Effect.Effect<Response, BridgeError | FormTooLarge, ConsoleRequirements>

export const isConsolePath = (path: string): boolean =>
  path === "/inbox/runs" || path.startsWith("/inbox/runs/") || path === "/inbox/clients" || path.startsWith("/inbox/clients/") || path === "/inbox/console/events"

/** Events shown per page of a run's events. */
export const EVENTS_PER_PAGE = 50

const query = (req: HttpServerRequest.HttpServerRequest) => new URL(req.url, "http://inbox.invalid").searchParams

const safeDecode = (s: string): string => {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}

const chrome = (signedIn: SignedIn) =>
  Effect.gen(function* () {
    const pending = yield* pendingRows
    const { queries } = yield* readConsole
    const version = yield* Effect.orDie(queries.version)
    return { ...chromeFor(signedIn, pending), version }
  })

/** A page that needs a session: without one, off to the sign-in form. */
const page = (render: (signedIn: SignedIn) => Handler): Handler =>
  Effect.flatMap(currentSession, ({ signedIn, hadCookie }) =>
    Option.isSome(signedIn)
      ? render(signedIn.value)
      : Effect.succeed(withoutCookie(seeOther(hadCookie ? "/inbox/signin?expired=1" : "/inbox/signin"), SESSION_COOKIE))
  )

/** A POST: same origin, a session, then the form's CSRF token, before anything is read or done. */
const post = (act: (signedIn: SignedIn, field: (name: string) => string | undefined) => Handler): Handler =>
  Effect.gen(function* () {
    const req = yield* HttpServerRequest.HttpServerRequest
    if (!sameOriginPost(req)) return textResponse("refused: this form must be sent from the inbox page itself", 403)
    const { signedIn, hadCookie } = yield* currentSession
    if (Option.isNone(signedIn)) return withoutCookie(yield* signInResponse(hadCookie ? "expired" : "required", 403), SESSION_COOKIE)
    const field = yield* readForm
    if (!csrfMatches(signedIn.value.session.csrf, field("csrf"))) {
      return textResponse("refused: the form's CSRF token does not match this session; reload the page and try again", 403)
    }
    return yield* act(signedIn.value, field)
  })

const runsList = page((signedIn) =>
  Effect.gen(function* () {
    const req = yield* HttpServerRequest.HttpServerRequest
    const filter = parseRunFilter(query(req))
    const c = yield* chrome(signedIn)
    if (filter._tag === "Left") return htmlResponse(messagePage(c, "Bad filter", filter.left), 400)
    const { queries } = yield* readConsole
    const [runs, choices, queue] = yield* Effect.orDie(Effect.all([queries.runs(filter.right), queries.filterChoices, queries.queue]))
    const replicas = yield* Effect.orDie(readReplicas(runs.filter((r) => !isTerminal(r.status)).map((r) => r.runId)))
    return htmlResponse(runsPage({ chrome: c, runs, filter: filter.right, choices, now: yield* Clock.currentTimeMillis, replicas, queue }))
  }))

const STOP_NOTICES: Record<string, string> = {
  requested: "Stop requested: Hermes is told to stop the run; it is recorded as the operator's stop.",
  already_ended: "The run had already ended; nothing was stopped."
}

const wholeNumber = (raw: string | null): number | null => {
  if (raw === null) return null
  const n = Number(raw)
  return Number.isInteger(n) && n >= 0 ? n : -1
}

const runDetail = (id: string) =>
  page((signedIn) =>
    Effect.gen(function* () {
      const req = yield* HttpServerRequest.HttpServerRequest
      const q = query(req)
      const c = yield* chrome(signedIn)
      const { queries } = yield* readConsole
      const summary = yield* Effect.orDie(queries.run(id))
      if (summary === null) return htmlResponse(messagePage(c, "No such run", `There is no run '${id.slice(0, 80)}'.`), 404)
      const offset = wholeNumber(q.get("offset")) ?? 0
      const sinceAsked = wholeNumber(q.get("since"))
      if (offset < 0 || (sinceAsked !== null && sinceAsked < 0)) return htmlResponse(messagePage(c, "Bad page", "offset and since are whole numbers ≥ 0."), 400)
      const runs = yield* Runs
      const view = yield* runs.status(id, offset).pipe(Effect.provideService(Caller, Caller.admin))
      const since = sinceAsked ?? Math.max(0, view.last_seq - EVENTS_PER_PAGE)
      const events = yield* runs.events(id, since, EVENTS_PER_PAGE).pipe(Effect.provideService(Caller, Caller.admin))
      const notice = STOP_NOTICES[q.get("stop") ?? ""] ?? null
      const replicas = yield* Effect.orDie(readReplicas(isTerminal(view.status) ? [] : [id]))
      return htmlResponse(runPage({ chrome: c, view, summary, events, since, pageSize: EVENTS_PER_PAGE, now: yield* Clock.currentTimeMillis, notice, replicas }))
    }))

const stopRun = (id: string) =>
  post(() =>
    Effect.gen(function* () {
      const stops = yield* OperatorStops
      const answer = yield* stops.request(id, "page")
      yield* Effect.logInfo(`console: operator stop of run ${id}: ${answer._tag}`)
      return seeOther(`${runHref(id)}?stop=${answer._tag === "AlreadyEnded" ? "already_ended" : "requested"}`)
    }))

const clientsList = page((signedIn) =>
  Effect.gen(function* () {
    const req = yield* HttpServerRequest.HttpServerRequest
    const c = yield* chrome(signedIn)
    const { queries } = yield* readConsole
    const now = yield* Clock.currentTimeMillis
    const clients = yield* Effect.orDie(queries.clients(now))
    // The notice names a client only if it is one and it is revoked (never echoed from the URL).
    const revoked = query(req).get("revoked")
    const known = clients.find((x) => x.name === revoked && x.revokedAt !== null)
    return htmlResponse(clientsPage(c, clients, now, known === undefined ? null : `Revoked client ${known.name}: its key no longer works.`))
  }))

const clientAction = (name: string) =>
  post((signedIn, field) =>
    Effect.gen(function* () {
      const auth = yield* Auth
      const action = field("action")
      const c = yield* chrome(signedIn)
      if (action !== "revoke" && action !== "rotate") return htmlResponse(messagePage(c, "No action", "Choose Revoke or Rotate on the clients page."), 422)
      const done = action === "revoke"
        ? yield* Effect.either(Effect.as(auth.revoke(name), null))
        : yield* Effect.either(Effect.map(auth.rotate(name), (r) => r.key))
      if (done._tag === "Left") return htmlResponse(messagePage(c, "Not done", done.left.message), 404)
      yield* Effect.logInfo(`console: client ${name} ${action === "revoke" ? "revoked" : "rotated"} by the operator`)
      if (done.right === null) return seeOther(`/inbox/clients?revoked=${encodeURIComponent(name)}`)
      return htmlResponse(newKeyPage(yield* chrome(signedIn), name, done.right))
    }))

const events: Handler = Effect.flatMap(currentSession, ({ signedIn }) =>
  Option.isSome(signedIn) ? consoleEventsResponse(signedIn.value.token) : Effect.succeed(textResponse("refused: sign in to the inbox first", 403))
)

const RUN_PATH = /^\/inbox\/runs\/([^/]+)$/
const STOP_PATH = /^\/inbox\/runs\/([^/]+)\/stop$/
const CLIENT_PATH = /^\/inbox\/clients\/([^/]+)$/

const route = (path: string): { readonly GET?: Handler; readonly POST?: Handler } | null => {
  if (path === "/inbox/runs") return { GET: runsList }
  if (path === "/inbox/clients") return { GET: clientsList }
  if (path === "/inbox/console/events") return { GET: events }
  const stop = STOP_PATH.exec(path)
  if (stop !== null) return { POST: stopRun(safeDecode(stop[1] ?? "")) }
  const run = RUN_PATH.exec(path)
  if (run !== null) return { GET: runDetail(safeDecode(run[1] ?? "")) }
  const client = CLIENT_PATH.exec(path)
  if (client !== null) return { POST: clientAction(safeDecode(client[1] ?? "")) }
  return null
}

/** Answers a request whose path `isConsolePath`. */
export const consoleApp = (path: string): Effect.Effect<Response, never, ConsoleRequirements> =>
  Effect.gen(function* () {
    const req = yield* HttpServerRequest.HttpServerRequest
    const handlers = route(path)
    if (handlers === null) return textResponse("no such page", 404)
    const handler = req.method === "GET" ? handlers.GET : req.method === "POST" ? handlers.POST : undefined
    if (handler === undefined) return methodNotAllowed(Object.keys(handlers).join(", "))
    return yield* handler
  }).pipe(
    Effect.catchTag("FormTooLarge", () => Effect.succeed(textResponse("refused: the form could not be read (forms here are small urlencoded bodies, at most 16 KiB)", 413))),
    Effect.catchAll((e) => Effect.as(Effect.logWarning("console page failed", errorText(e)), textResponse(errorText(e), errorStatus(e))))
  )
