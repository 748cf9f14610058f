/** JSON error bodies of the HTTP surfaces: `{"error":{"code","message"}}`. */
import { HttpServerResponse } from "@effect/platform"
import { AuthForbidden, type BridgeError, errorCode, errorStatus } from "../../domain/errors.ts"

/** The body every refusal of the daemon carries, on every path (also `clientError.ts`, below HTTP). */
export const errorBody = (code: string, message: string) => ({ error: { code, message } })

export const jsonError = (status: number, code: string, message: string) =>
  HttpServerResponse.unsafeJson(errorBody(code, message), { status })

/** A bridge error as its answer: code and status from the error table. */
export const bridgeErrorResponse = (e: BridgeError) => jsonError(errorStatus(e), errorCode(e), e.message)

/** `auth.forbidden`, with its code and status from the error table like every other error. */
export const forbidden = (message = "a valid bridge key or the admin key is required") =>
  bridgeErrorResponse(new AuthForbidden({ message }))

export const notFound = () => jsonError(404, "not_found", "no such path")
