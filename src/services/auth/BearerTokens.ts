/**
 * Bearer tokens other than bridge keys: OAuth access tokens (services/oauth/). Auth asks this, when
 * it is present, about a token that is neither the admin key nor a `hal0bk_` key; it then checks
 * itself that the client the token names is live, so `client revoke` ends a client's tokens as it
 * ends its key (and the edge's re-checks on the change feed end its open work). Absent (OAuth off),
 * Auth is exactly what it was.
 */
import { Context, Effect, Layer, Option } from "effect"
import type { Scope } from "../../request/Caller.ts"

export interface BearerGrant {
  /** The bridge client the grant was approved as. */
  readonly client: string
  /** The resources (RFC 8707 audiences) the token was issued for. */
  readonly audience: ReadonlyArray<string>
  readonly scopes: ReadonlyArray<Scope>
}

export interface BearerTokensShape {
  /** The grant an unexpired, unrevoked access token carries, or none. */
  readonly lookup: (token: string) => Effect.Effect<Option.Option<BearerGrant>>
  /** Auth refused a token `lookup` found (its client is revoked): it is no secret any more. */
  readonly refused: (token: string) => Effect.Effect<void>
}

export class BearerTokens extends Context.Tag("agent-bridge/auth/BearerTokens")<BearerTokens, BearerTokensShape>() {}

/** `BearerTokensTest(grants)`: answers each token's grant from the test's map (absent: none); records nothing. */
export const BearerTokensTest = (grants: ReadonlyMap<string, BearerGrant>) =>
  Layer.succeed(BearerTokens, { lookup: (token) => Effect.succeed(Option.fromNullable(grants.get(token))), refused: () => Effect.void })
