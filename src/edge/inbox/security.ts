/**
 * The inbox page's browser-side defences: response headers (no framing, no caching, a CSP that
 * allows only the page's own script and stylesheet), the cookies, and the checks every POST passes
 * before anything else happens (same origin, then the form's CSRF token).
 */
import type { HttpServerRequest } from "@effect/platform"
import { HttpServerResponse } from "@effect/platform"
import type { Duration } from "effect"
import { sameSecret } from "./sessions.ts"

export const INBOX_PATH = "/inbox"
export const SESSION_COOKIE = "agent_bridge_inbox"
/** Double-submit token of the sign-in form (there is no session yet to hold one). */
export const SIGNIN_COOKIE = "agent_bridge_inbox_signin"

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'"
].join("; ")

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-frame-options": "DENY",
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  // Not "no-referrer": under it a browser sends `Origin: null` with the page's own form posts,
  // which the same-origin check must refuse. "same-origin" still tells other sites nothing.
  "referrer-policy": "same-origin",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin"
}

export const withSecurityHeaders = (res: HttpServerResponse.HttpServerResponse) => HttpServerResponse.setHeaders(res, SECURITY_HEADERS)

const cookieOptions = (maxAge: Duration.DurationInput) =>
  ({ path: INBOX_PATH, httpOnly: true, sameSite: "strict", maxAge }) as const

/** Sets `name` (an always-valid base64url token) on the response. */
export const withCookie = (res: HttpServerResponse.HttpServerResponse, name: string, value: string, maxAge: Duration.DurationInput) =>
  HttpServerResponse.unsafeSetCookie(res, name, value, cookieOptions(maxAge))

/** Tells the browser to drop `name`. */
export const withoutCookie = (res: HttpServerResponse.HttpServerResponse, name: string) =>
  HttpServerResponse.unsafeSetCookie(res, name, "", { ...cookieOptions(0), expires: new Date(0) })

export const cookie = (req: HttpServerRequest.HttpServerRequest, name: string): string | undefined => req.cookies[name]

/**
 * A POST must come from this page: an `Origin` header, when the browser sends one, names the same
 * host as `Host`, and `Sec-Fetch-Site`, when sent, is `same-origin`. The CSRF token is checked as well;
 * this only refuses the obvious cross-site request before the form is read.
 */
export const sameOriginPost = (req: HttpServerRequest.HttpServerRequest): boolean => {
  const site = req.headers["sec-fetch-site"]
  if (site !== undefined && site !== "same-origin") return false
  const origin = req.headers["origin"]
  if (origin === undefined) return true
  if (origin === "null") return false
  try {
    return new URL(origin).host === (req.headers["host"] ?? "")
  } catch {
    return false
  }
}

/** The form's token equals the expected one (constant time). */
export const csrfMatches = (expected: string, submitted: string | undefined): boolean =>
  submitted !== undefined && submitted.length > 0 && submitted.length <= 128 && sameSecret(expected, submitted)
