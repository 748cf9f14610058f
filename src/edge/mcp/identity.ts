/**
 * Who a request to the MCP edge is: the authenticated caller and the key it used, handed to the SDK
 * with the request (`authInfoFor`) and read back in a handler (`identityOf`). A leaf, so the
 * server (`mcpServer.ts`) and its extensions (`skillsExtension.ts`) do not import each other.
 */
import { ProtocolError, ProtocolErrorCode, type ServerContext } from "@modelcontextprotocol/server"
import type { CallerShape } from "../../request/Caller.ts"

/** What the edge hands the SDK with each request: the authenticated caller and the key it used. */
export interface RequestIdentity {
  readonly caller: CallerShape
  /** The bearer key of this request: in-flight work is ended when it is revoked or rotated. */
  readonly token: string
}

export const authInfoFor = (identity: RequestIdentity) => ({
  token: identity.token,
  clientId: identity.caller.client,
  scopes: [...identity.caller.scopes],
  extra: { identity }
})

export const identityOf = (ctx: ServerContext): RequestIdentity => {
  const identity = ctx.http?.authInfo?.extra?.["identity"] as RequestIdentity | undefined
  // The edge always sets it; a request without one never reaches a tool.
  if (identity === undefined) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, "unauthenticated")
  return identity
}
