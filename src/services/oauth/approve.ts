/**
 * The operator's decision on a connection request, wherever it is given (the inbox page, the
 * consent page with the admin key): approved, the request's client becomes a bridge client
 * (`Auth.oauthClient`: named after the client, scopes `agents` and, when asked, `memory`, its runs
 * private to it like any client's) and the row records which; denied, the row says so. The
 * browser's waiting page then ends the authorization with a grant or with `access_denied`.
 */
import { Effect, Option } from "effect"
import { Auth, type ClientError } from "../auth/Auth.ts"
import type { Scope } from "../../request/Caller.ts"
import { type Consent, Consents } from "./Consents.ts"

/** The bridge scopes a request's grant holds: `agents` always, `memory` when its scope or resource asks. */
export const scopesOf = (consent: Pick<Consent, "scopes" | "resource">): ReadonlyArray<Scope> =>
  consent.scopes.includes("memory") || consent.resource.endsWith("/mcp/memory/mcp") ? ["agents", "memory"] : ["agents"]

/** Decides a pending request; none when it was no longer pending. */
export const decideConsent = (id: string, approve: boolean, by: string): Effect.Effect<Option.Option<Consent>, ClientError, Consents | Auth> =>
  Effect.gen(function* () {
    const consents = yield* Consents
    const found = yield* consents.get(id)
    if (Option.isNone(found) || found.value.state !== "pending") return Option.none()
    if (!approve) return yield* consents.decide(id, { approve: false, by })
    const auth = yield* Auth
    const c = found.value
    const client = yield* auth.oauthClient(c.client_name, scopesOf(c), { kind: "oauth", client_id: c.client_id, host: c.client_host })
    return yield* consents.decide(id, { approve: true, by, bridgeClient: client.name })
  })
