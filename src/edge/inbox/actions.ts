/**
 * The POST routes: sign in, sign out, and decide a row. Each checks, in order, that the request comes
 * from this page (same origin), that a session exists where one is needed, and the form's CSRF token;
 * only then is anything read or done. A sign-in then passes the per-address limit on wrong keys. A decision goes to the same `Inbox.decide` the CLI calls.
 */
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Duration, Effect, Option } from "effect"
import { errorStatus, errorText } from "../../domain/errors.ts"
import { isApproveChoice } from "../../domain/approvals.ts"
import { type Decision, Inbox } from "../../services/inbox/Inbox.ts"
import { InboxWeb } from "./InboxWeb.ts"
import { rowPageResponse } from "./pages.ts"
import { currentSession, htmlResponse, readForm, seeOther, type SignedIn, textResponse } from "./respond.ts"
import { cookie, csrfMatches, sameOriginPost, SESSION_COOKIE, SIGNIN_COOKIE, withCookie, withoutCookie } from "./security.ts"
import { newToken } from "./sessions.ts"
import { signInPage, type SignInNotice } from "./views/signin.ts"
import { Consents } from "../../services/oauth/Consents.ts"
import { decideConsent } from "../../services/oauth/approve.ts"
import { Auth } from "../../services/auth/Auth.ts"

/** Decisions are recorded as the admin, as the CLI records them (docs/REFERENCE.md). */
export const DECIDER = "admin"
const SIGNIN_FORM_TTL = "1 hour"

const crossSite = () => textResponse("refused: this form must be sent from the inbox page itself", 403)

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/

/**
 * The sign-in page and its form token (and cookie). A token the browser already holds is kept, so
 * a refusal in one tab does not turn the sign-in form open in another tab stale.
 */
export const signInResponse = (notice: SignInNotice | null, status = 200) =>
  Effect.map(HttpServerRequest.HttpServerRequest, (req) => {
    const held = cookie(req, SIGNIN_COOKIE)
    const token = held !== undefined && TOKEN_SHAPE.test(held) ? held : newToken()
    return withCookie(htmlResponse(signInPage(token, notice), status), SIGNIN_COOKIE, token, SIGNIN_FORM_TTL)
  })

/** 429 from the sign-in limit: the form again, and when the address may try next. */
const tooManyAttempts = (retryAfterSeconds: number) =>
  Effect.map(signInResponse("too_many_attempts", 429), (res) => HttpServerResponse.setHeader(res, "retry-after", String(retryAfterSeconds)))

export const signIn = Effect.gen(function* () {
  const req = yield* HttpServerRequest.HttpServerRequest
  const web = yield* InboxWeb
  if (!sameOriginPost(req)) return crossSite()
  const field = yield* readForm
  const expected = cookie(req, SIGNIN_COOKIE)
  if (expected === undefined || !csrfMatches(expected, field("csrf"))) return yield* signInResponse("stale_form", 403)
  // Only now is a key guessed: the attempt is counted against the address before the key is looked at.
  // The client's address: the socket's peer, or X-Forwarded-For's when the peer is a trusted proxy.
  const address = web.clientAddress(req)
  const attempt = yield* web.sessions.signInLimit.attempt(address)
  if (attempt._tag === "Refused") return yield* tooManyAttempts(attempt.retryAfterSeconds)
  if (!web.isAdminKey((field("key") ?? "").trim())) {
    if (attempt.last) {
      // A lockout is worth the operator's attention: who was locked out, for how long.
      const policy = web.sessions.signInLimit.policy
      yield* Effect.logWarning(
        `inbox page: ${policy.maxFailures} wrong keys from ${address}; sign-ins from ${address} are refused for ${Duration.format(policy.window)}`
      ).pipe(Effect.annotateLogs({ client_address: address, peer: Option.getOrElse(req.remoteAddress, () => "none") }))
    } else {
      yield* Effect.logWarning("inbox page: sign-in refused (not the admin key)").pipe(Effect.annotateLogs({ client_address: address }))
    }
    return yield* signInResponse("wrong_key", 403)
  }
  yield* web.sessions.signInLimit.succeeded(address)
  // A new sign-in replaces whatever session this browser had.
  yield* web.sessions.close(cookie(req, SESSION_COOKIE))
  const { token } = yield* web.sessions.open
  yield* Effect.logInfo("inbox page: operator signed in")
  return withoutCookie(withCookie(seeOther("/inbox"), SESSION_COOKIE, token, web.sessions.ttl), SIGNIN_COOKIE)
})

/** Refusal of a POST that needs a session: 403, with the sign-in page to continue from. */
const signInFirst = (hadCookie: boolean) => signInResponse(hadCookie ? "expired" : "required", 403)

export const signOut = Effect.gen(function* () {
  const req = yield* HttpServerRequest.HttpServerRequest
  const web = yield* InboxWeb
  if (!sameOriginPost(req)) return crossSite()
  const { signedIn, hadCookie } = yield* currentSession
  if (signedIn._tag === "None") return withoutCookie(yield* signInFirst(hadCookie), SESSION_COOKIE)
  const field = yield* readForm
  if (!csrfMatches(signedIn.value.session.csrf, field("csrf"))) return staleForm()
  yield* web.sessions.close(signedIn.value.token)
  return withoutCookie(seeOther("/inbox/signin?signed_out=1"), SESSION_COOKIE)
})

const staleForm = () => textResponse("refused: the form's CSRF token does not match this session; reload the page and try again", 403)

/** The form's `decision`: approve, deny, or (run approvals) the approve choice itself. */
export const parseDecision = (value: string | undefined, kind: "skill_put" | "skill_delete" | "run_approval"): Decision | null => {
  const who = { by: DECIDER, via: "page" } as const
  if (value === "deny") return { approve: false, ...who }
  if (value === "approve") return { approve: true, ...who }
  if (kind === "run_approval" && isApproveChoice(value)) return { approve: true, choice: value, ...who }
  return null
}

export const decideRow = (id: string) =>
  Effect.gen(function* () {
    const req = yield* HttpServerRequest.HttpServerRequest
    const inbox = yield* Inbox
    if (!sameOriginPost(req)) return crossSite()
    const { signedIn, hadCookie } = yield* currentSession
    if (signedIn._tag === "None") return withoutCookie(yield* signInFirst(hadCookie), SESSION_COOKIE)
    const field = yield* readForm
    if (!csrfMatches(signedIn.value.session.csrf, field("csrf"))) return staleForm()
    const row = yield* inbox.get(id)
    if (row._tag === "None") return yield* rowPageResponse(signedIn.value, id)
    const decision = parseDecision(field("decision"), row.value.kind)
    if (decision === null) {
      return yield* rowPageResponse(signedIn.value, id, { text: "Choose one of the buttons below: the form named no decision this row takes.", status: 422 })
    }
    return yield* decided(signedIn.value, id, decision)
  })

const decided = (signedIn: SignedIn, id: string, decision: Decision) =>
  Effect.flatMap(Inbox, (inbox) => inbox.decide(id, decision)).pipe(
    Effect.tap((row) => Effect.logInfo(`inbox page: row ${row.state}`).pipe(Effect.annotateLogs({ inbox_row: id }))),
    Effect.map((row) => seeOther(`/inbox?decided=${encodeURIComponent(row.id)}`)),
    Effect.catchAll((e) => rowPageResponse(signedIn, id, { text: errorText(e), status: errorStatus(e) }))
  )

/**
 * POST /inbox/connect/:id: the operator's decision on an OAuth connection request (session +
 * CSRF, as a row's). Approved, the client becomes a bridge client (`services/oauth/approve.ts`);
 * the browser waiting on the request moves on by itself.
 */
export const decideConnection = (id: string) =>
  Effect.gen(function* () {
    const req = yield* HttpServerRequest.HttpServerRequest
    if (!sameOriginPost(req)) return crossSite()
    const { signedIn, hadCookie } = yield* currentSession
    if (signedIn._tag === "None") return withoutCookie(yield* signInFirst(hadCookie), SESSION_COOKIE)
    const field = yield* readForm
    if (!csrfMatches(signedIn.value.session.csrf, field("csrf"))) return staleForm()
    const consents = yield* Effect.serviceOption(Consents)
    const auth = yield* Effect.serviceOption(Auth)
    const decision = field("decision")
    if (Option.isNone(consents) || Option.isNone(auth) || (decision !== "approve" && decision !== "deny")) return textResponse("no such connection request, or no decision named", 404)
    const decided = yield* decideConsent(id, decision === "approve", DECIDER).pipe(
      Effect.provideService(Consents, consents.value),
      Effect.provideService(Auth, auth.value),
      Effect.catchAll((e) => Effect.as(Effect.logWarning("inbox page: approving a connection failed", e.message), Option.none()))
    )
    if (Option.isSome(decided)) yield* Effect.logInfo(`inbox page: connection request ${decided.value.state}`).pipe(Effect.annotateLogs({ oauth_client: decided.value.client_name }))
    return seeOther("/inbox")
  })
