/**
 * What the inbox page needs besides the `Inbox` service: the operator sessions (rows of the
 * database through `OperatorSessions` and `SignInFailures`, which the layer needs), the admin key check
 * (the admin key is the sign-in credential), the live-update timing, and the page's own stylesheet
 * and script, read once from the package (the page loads nothing from anywhere else).
 */
import type { HttpServerRequest } from "@effect/platform"
import { Context, Duration, Effect, Layer, Option, Redacted } from "effect"
import * as fs from "node:fs"
import { digestKey, sameDigest } from "../../services/auth/apiKeys.ts"
import { AppConfig } from "../../config/AppConfig.ts"
import { clientAddress, trustedProxies } from "../../common/trustedProxies.ts"
import { Auth } from "../../services/auth/Auth.ts"
import { type InboxSessionsShape, makeInboxSessions } from "./sessions.ts"
import type { SignInLimitPolicy } from "./signInLimit.ts"

export interface InboxWebOptions {
  /** How long a sign-in lasts (default 12 hours). */
  readonly sessionTtl?: Duration.DurationInput
  /** The least time between two reads of the console's version that changes bring (a burst within it is one read at its end), and the pause before a failed read of the inbox's rows is tried again (default 1 second). Never a poll. */
  readonly pollInterval?: Duration.DurationInput
  /** How often an idle event stream sends a keep-alive comment (default 15 seconds). */
  readonly heartbeat?: Duration.DurationInput
  /** Proxies whose X-Forwarded-For names the client (default: `bridge.trusted_proxies`). */
  readonly trustedProxies?: ReadonlyArray<string>
  /** The sign-in limit (default `DEFAULT_SIGN_IN_LIMIT`: 5 wrong keys in 5 minutes). */
  readonly signInLimit?: SignInLimitPolicy
}

export interface StaticAsset {
  readonly body: string
  readonly contentType: string
}

export interface InboxWebShape {
  readonly sessions: InboxSessionsShape
  /** True when `candidate` is the admin key (constant-time over digests). */
  readonly isAdminKey: (candidate: string) => boolean
  readonly pollInterval: Duration.Duration
  readonly heartbeat: Duration.Duration
  /** By file name under `/inbox/static/`. */
  readonly assets: ReadonlyMap<string, StaticAsset>
  /** The address a request is counted under by the sign-in limit (see `common/trustedProxies.ts`). */
  readonly clientAddress: (req: HttpServerRequest.HttpServerRequest) => string
}

export class InboxWeb extends Context.Tag("agent-bridge/inbox/InboxWeb")<InboxWeb, InboxWebShape>() {}

export const DEFAULT_SESSION_TTL = Duration.hours(12)
const KEY_MAX_CHARS = 512

const ASSET_TYPES: Record<string, string> = {
  "inbox.css": "text/css; charset=utf-8",
  "inbox.js": "text/javascript; charset=utf-8",
  "favicon.svg": "image/svg+xml"
}

const loadAssets = Effect.sync(() =>
  new Map(
    Object.entries(ASSET_TYPES).map(([name, contentType]) => [
      name,
      { body: fs.readFileSync(new URL(`./static/${name}`, import.meta.url), "utf8"), contentType }
    ])
  )
)

export const InboxWebLive = (options: InboxWebOptions = {}) =>
  Layer.effect(
    InboxWeb,
    Effect.gen(function* () {
      const auth = yield* Auth
      const adminDigest = digestKey(Redacted.value(auth.adminKey))
      const trusted = trustedProxies(options.trustedProxies ?? (yield* AppConfig).bridge.trusted_proxies)
      return {
        sessions: yield* makeInboxSessions(options.sessionTtl ?? DEFAULT_SESSION_TTL, adminDigest, options.signInLimit),
        isAdminKey: (candidate) =>
          candidate.length > 0 && candidate.length <= KEY_MAX_CHARS && sameDigest(digestKey(candidate), adminDigest),
        pollInterval: Duration.decode(options.pollInterval ?? Duration.seconds(1)),
        heartbeat: Duration.decode(options.heartbeat ?? Duration.seconds(15)),
        assets: yield* loadAssets,
        clientAddress: (req) => {
          const forwarded = req.headers["x-forwarded-for"]
          // Without a peer (in-process requests) all share one name.
          return clientAddress(Option.getOrUndefined(req.remoteAddress), forwarded, trusted) ?? "unknown"
        }
      }
    })
  )
