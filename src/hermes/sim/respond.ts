/** The simulator's HTTP answers: ASCII-escaped JSON bodies and Hermes's error envelope. */
import { HttpServerResponse } from "@effect/platform"
import { asciiJson, errorEnvelope } from "./wire.ts"

export const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  HttpServerResponse.text(asciiJson(body), { status, contentType: "application/json; charset=utf-8", headers })

export const fail = (
  status: number,
  code: string | null,
  message: string,
  options: { readonly retryAfter?: number | undefined; readonly param?: string | undefined; readonly type?: string | undefined } = {}
) =>
  json(
    status,
    errorEnvelope(message, code, options.type ?? (status >= 500 ? "server_error" : "invalid_request_error"), options.param ?? null),
    options.retryAfter === undefined ? {} : { "retry-after": String(options.retryAfter) }
  )

export const runNotFound = () => fail(404, "run_not_found", "Run not found")

/** A code for a status when a fault names none. */
export const defaultCode = (status: number): string =>
  status === 400 ? "invalid_request" :
  status === 401 ? "invalid_api_key" :
  status === 403 ? "forbidden" :
  status === 404 ? "not_found" :
  status === 409 ? "conflict" :
  status === 413 ? "request_too_large" :
  status === 429 ? "rate_limit_exceeded" :
  status === 503 ? "gateway_draining" :
  "internal_error"
