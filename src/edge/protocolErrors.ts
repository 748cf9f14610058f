/**
 * What a bridge error is to a protocol, decided once for every face: the run is unknown to this
 * caller (another client's run reads the same) → the protocol's "not found"; any other refusal of
 * the request (a 4xx status in the error table) → its "invalid params", with the bridge's
 * sentence; the rest (the bridge unavailable, an incident) → its "internal error". Each face maps
 * the kind to its own error in a table (`mcp/tasks/taskMethods.ts`, `a2a/handler.ts`).
 */
import { type BridgeError, errorStatus } from "../domain/errors.ts"

export type ProtocolErrorKind = "not_found" | "invalid_params" | "internal"

export const protocolErrorKind = (e: BridgeError): ProtocolErrorKind =>
  e._tag === "RunNotFound" ? "not_found" : errorStatus(e) < 500 ? "invalid_params" : "internal"
