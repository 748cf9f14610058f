/**
 * The operator's inbox page under `/inbox` (docs/REFERENCE.md): its route table (`INBOX_ROUTES`), behind the edge's
 * `HttpRouter` (`http/app.ts`, which hands every `/inbox` path here).
 *
 *   GET  /inbox                 pending rows, newest first          (session)
 *   GET  /inbox/history         decided rows                        (session)
 *   GET  /inbox/rows/:id        one row in full, with the decision  (session)
 *   POST /inbox/rows/:id        approve / deny it                   (session + CSRF)
 *   POST /inbox/connect/:id     approve / deny an OAuth connection  (session + CSRF)
 *   GET  /inbox/events          Server-Sent Events: pending changed (session)
 *   GET  /inbox/signin          the sign-in form
 *   POST /inbox/signin          sign in with the admin key          (sign-in form token)
 *   POST /inbox/signout         sign out                            (session + CSRF)
 *   GET  /inbox/static/*        the page's stylesheet and script
 *
 * Without a session a page redirects to the sign-in form and everything else is refused (403), so
 * nothing of the inbox is reachable without the admin key. Every response carries the security headers.
 */
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { type BridgeError, errorStatus, errorText } from "../../domain/errors.ts"
import type { Inbox } from "../../services/inbox/Inbox.ts"
import type { SkillStore } from "../../services/skill-store/SkillStore.ts"
import type { Redactor } from "../../common/Redactor.ts"
import { decideConnection, decideRow, signIn, signInResponse, signOut } from "./actions.ts"
import { eventsResponse } from "./events.ts"
import { InboxWeb } from "./InboxWeb.ts"
import { historyPageResponse, pendingPageResponse, rowPageResponse } from "./pages.ts"
import { currentSession, type FormTooLarge, methodNotAllowed, queryParam, type Response, seeOther, type SignedIn, textResponse } from "./respond.ts"
import { SESSION_COOKIE, withoutCookie, withSecurityHeaders } from "./security.ts"

export type InboxRequirements = HttpServerRequest.HttpServerRequest | Inbox | SkillStore | Redactor | InboxWeb

export const isInboxPath = (path: string): boolean => path === "/inbox" || path.startsWith("/inbox/")

type Handler = Effect.Effect<Response, BridgeError | FormTooLarge, InboxRequirements>

/** A page that needs a session: without one, off to the sign-in form (saying why, if a session ended). */
const page = (render: (signedIn: SignedIn) => Handler): Handler =>
  Effect.flatMap(currentSession, ({ signedIn, hadCookie }) =>
    signedIn._tag === "Some"
      ? render(signedIn.value)
      : Effect.succeed(withoutCookie(seeOther(hadCookie ? "/inbox/signin?expired=1" : "/inbox/signin"), SESSION_COOKIE))
  )

const signInPageRoute: Handler = Effect.gen(function* () {
  const req = yield* HttpServerRequest.HttpServerRequest
  const { signedIn } = yield* currentSession
  if (signedIn._tag === "Some") return seeOther("/inbox")
  return yield* signInResponse(queryParam(req, "expired") !== null ? "expired" : queryParam(req, "signed_out") !== null ? "signed_out" : null)
})

const events: Handler = Effect.flatMap(currentSession, ({ signedIn }) =>
  signedIn._tag === "Some" ? eventsResponse(signedIn.value.token) : Effect.succeed(textResponse("refused: sign in to the inbox first", 403))
)

const staticAsset = (name: string): Handler =>
  Effect.map(InboxWeb, (web) => {
    const asset = web.assets.get(name)
    return asset === undefined
      ? textResponse("no such file", 404)
      : withSecurityHeaders(HttpServerResponse.text(asset.body, { contentType: asset.contentType }))
  })

const ROW_PATH = /^\/inbox\/rows\/([^/]+)$/

/** A malformed escape is not a row id either (the row page then says there is no such row). */
const safeDecode = (s: string): string => {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}

/** GET and POST handlers of one path; `param` is what the path's pattern captured (a row id, a file name). */
interface InboxRoute {
  /** The exact path, or a pattern whose first group is the parameter. */
  readonly path: string | RegExp
  readonly GET?: (param: string) => Handler
  readonly POST?: (param: string) => Handler
}

/**
 * Every page of the inbox, in one table, first match wins. Add a page here: its path (or pattern)
 * and a handler per method it takes; other methods get 405 with the right `Allow`.
 */
export const INBOX_ROUTES: ReadonlyArray<InboxRoute> = [
  { path: "/inbox", GET: () => page(pendingPageResponse) },
  { path: "/inbox/", GET: () => page(pendingPageResponse) },
  { path: "/inbox/history", GET: () => page(historyPageResponse) },
  { path: "/inbox/events", GET: () => events },
  { path: "/inbox/signin", GET: () => signInPageRoute, POST: () => signIn },
  { path: "/inbox/signout", POST: () => signOut },
  { path: /^\/inbox\/static\/(.*)$/s, GET: (name) => staticAsset(name) },
  { path: ROW_PATH, GET: (id) => page((s) => rowPageResponse(s, id)), POST: (id) => decideRow(id) },
  { path: /^\/inbox\/connect\/([A-Za-z0-9_-]{1,64})$/, POST: (id) => decideConnection(id) }
]

/** The route for `path` and its parameter (decoded), or null. */
const route = (path: string): { readonly route: InboxRoute; readonly param: string } | null => {
  for (const r of INBOX_ROUTES) {
    if (typeof r.path === "string") {
      if (r.path === path) return { route: r, param: "" }
      continue
    }
    const m = r.path.exec(path)
    if (m !== null) return { route: r, param: r.path === ROW_PATH ? safeDecode(m[1] ?? "") : (m[1] ?? "") }
  }
  return null
}

/** Answers a request whose path `isInboxPath`. */
export const inboxApp = (path: string): Effect.Effect<Response, never, InboxRequirements> =>
  Effect.gen(function* () {
    const req = yield* HttpServerRequest.HttpServerRequest
    const found = route(path)
    if (found === null) return textResponse("no such page", 404)
    const handler = req.method === "GET" ? found.route.GET : req.method === "POST" ? found.route.POST : undefined
    if (handler === undefined) return methodNotAllowed((["GET", "POST"] as const).filter((m) => found.route[m] !== undefined).join(", "))
    return yield* handler(found.param)
  }).pipe(
    Effect.catchTag("FormTooLarge", () =>
      Effect.succeed(textResponse("refused: the form could not be read (forms here are small urlencoded bodies, at most 16 KiB)", 413))
    ),
    // The Inbox already logged an internal failure under its incident id, which is all the page shows.
    Effect.catchAll((e) => Effect.as(Effect.logWarning("inbox page failed", errorText(e)), textResponse(errorText(e), errorStatus(e))))
  )
