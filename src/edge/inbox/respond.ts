/**
 * Request and response plumbing shared by the inbox routes: the signed-in session of a request, the
 * HTML and redirect responses (always with the security headers), and small form bodies.
 */
import { HttpServerRequest, HttpServerResponse, UrlParams } from "@effect/platform"
import { HttpIncomingMessage } from "@effect/platform"
import { Data, Effect, Option } from "effect"
import { Inbox, type InboxRow } from "../../services/inbox/Inbox.ts"
import { sha256Hex } from "../../domain/skills/card.ts"
import { documentText, type Html } from "./html.ts"
import { InboxWeb } from "./InboxWeb.ts"
import { cookie, SESSION_COOKIE, withSecurityHeaders } from "./security.ts"
import type { InboxSession } from "./sessions.ts"
import type { SignedInChrome } from "./views/layout.ts"

export type Response = HttpServerResponse.HttpServerResponse

export const htmlResponse = (body: Html, status = 200): Response =>
  withSecurityHeaders(HttpServerResponse.text(documentText(body), { status, contentType: "text/html; charset=utf-8" }))

export const textResponse = (text: string, status: number): Response =>
  withSecurityHeaders(HttpServerResponse.text(`${text}\n`, { status, contentType: "text/plain; charset=utf-8" }))

/** 303: after a POST the browser follows with a GET. */
export const seeOther = (location: string): Response =>
  withSecurityHeaders(HttpServerResponse.redirect(location, { status: 303 }))

export const methodNotAllowed = (allow: string): Response =>
  HttpServerResponse.setHeader(textResponse("method not allowed", 405), "allow", allow)

export interface SignedIn {
  readonly token: string
  readonly session: InboxSession
}

/** The request's live session; `hadCookie` tells an ended session from a visitor who never signed in. */
export const currentSession = Effect.gen(function* () {
  const req = yield* HttpServerRequest.HttpServerRequest
  const web = yield* InboxWeb
  const token = cookie(req, SESSION_COOKIE)
  const found = yield* web.sessions.find(token)
  return {
    signedIn: Option.map(found, (session): SignedIn => ({ token: token ?? "", session })),
    hadCookie: token !== undefined && token !== ""
  }
})

/** Forms here are a token and a word or two; anything bigger is refused before it is read. */
const FORM_MAX_BYTES = 16 * 1024

/** The form body was too big (or could not be read at all). */
export class FormTooLarge extends Data.TaggedError("FormTooLarge")<{}> {}

/** The urlencoded body as name → first value. */
export const readForm = Effect.gen(function* () {
  const req = yield* HttpServerRequest.HttpServerRequest
  // The declared length is refused up front; the limit below also stops a body sent without one.
  if (Number(req.headers["content-length"] ?? 0) > FORM_MAX_BYTES) return yield* Effect.fail(new FormTooLarge())
  const params = yield* req.urlParamsBody.pipe(
    HttpIncomingMessage.withMaxBodySize(Option.some(FORM_MAX_BYTES)),
    Effect.mapError(() => new FormTooLarge())
  )
  return (name: string): string | undefined => Option.getOrUndefined(UrlParams.getFirst(params, name))
})

export const queryParam = (req: HttpServerRequest.HttpServerRequest, name: string): string | null =>
  new URL(req.url, "http://inbox.invalid").searchParams.get(name)

/** Fingerprint of the pending rows: changes whenever a row arrives or leaves pending. */
export const pendingVersion = (rows: ReadonlyArray<InboxRow>): string =>
  sha256Hex(rows.map((r) => r.id).join("\n")).slice(0, 16)

export const pendingRows = Effect.flatMap(Inbox, (inbox) => inbox.list({ state: "pending" }))

/** The header's pending count and version, and the session's CSRF token for the page's forms. */
export const chromeFor = (signedIn: SignedIn, pending: ReadonlyArray<InboxRow>): SignedInChrome => ({
  csrf: signedIn.session.csrf,
  pendingCount: pending.length,
  version: pendingVersion(pending)
})
