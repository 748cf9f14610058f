/** JSON error bodies of the HTTP surfaces: `{"error":{"code","message"}}`. */
import { HttpServerResponse } from "@effect/platform"

export const jsonError = (status: number, code: string, message: string) =>
  HttpServerResponse.unsafeJson({ error: { code, message } }, { status })

export const forbidden = (message = "a valid bridge key or the admin key is required") =>
  jsonError(403, "auth.forbidden", message)

export const notFound = () => jsonError(404, "not_found", "no such path")
