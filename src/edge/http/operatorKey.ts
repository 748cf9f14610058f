/**
 * The operator's read keys: the admin key, or `bridge.metrics_token` when one is configured (a
 * scraper or a health checker then holds no key that could do anything else). `/metrics` needs one;
 * `/healthz` and the agent card show their detail only to a request that carries one.
 */
import { HttpServerRequest } from "@effect/platform"
import { Effect, Redacted } from "effect"
import { AppConfig } from "../../config/AppConfig.ts"
import { bearerToken, digestKey, sameDigest } from "../../services/auth/apiKeys.ts"
import { Auth } from "../../services/auth/Auth.ts"

/** True when `token` is the admin key or the configured metrics token (constant time over digests). */
export const isOperatorKey = (token: string | undefined) =>
  Effect.gen(function* () {
    if (token === undefined || token.length === 0 || token.length > 512) return false
    const auth = yield* Auth
    const config = yield* AppConfig
    const digest = digestKey(token)
    const candidates = [auth.adminKey, ...(config.bridge.metrics_token === undefined ? [] : [config.bridge.metrics_token])]
    // Every candidate is compared, so the time says nothing about which one matched.
    return candidates.map((k) => sameDigest(digest, digestKey(Redacted.value(k)))).some((ok) => ok)
  })

/** True when the request's bearer token is the admin key or the metrics token. */
export const requestHasOperatorKey = Effect.flatMap(HttpServerRequest.HttpServerRequest, (req) => isOperatorKey(bearerToken(req.headers["authorization"])))
