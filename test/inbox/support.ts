/**
 * In-process harness for the inbox routes: the real Inbox, skills and Auth stack over an in-memory
 * database and a Hermes double, the inbox web layer, and a tiny browser (a cookie jar that sends the
 * page's own Host and Origin) that calls `inboxApp` with web Requests.
 */
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Duration, Effect, Layer, Redacted, Ref } from "effect"
import { AppConfigLive } from "../../src/config/AppConfig.ts"
import { InboxWeb, type InboxWebOptions, InboxWebLive } from "../../src/edge/inbox/InboxWeb.ts"
import { inboxApp } from "../../src/edge/inbox/routes.ts"
import { OperatorSessionsLive } from "../../src/services/inbox/OperatorSessions.ts"
import { SignInFailuresLive } from "../../src/services/inbox/SignInFailures.ts"
import { Auth, AuthLive } from "../../src/services/auth/Auth.ts"
import { ChangeFeedTest } from "../../src/storage/ChangeFeed.ts"
import { Inbox, type RunApprovalInput } from "../../src/services/inbox/Inbox.ts"
import { Skills } from "../../src/services/skills/Skills.ts"
import { testConfig } from "../support/daemon.ts"
import { makeStack, type Stack } from "../teach/skillFixtures.ts"
import { as } from "../teach/support.ts"

export const HOST = "127.0.0.1:8765"
export const ORIGIN = `http://${HOST}`

export interface Harness {
  readonly stack: Stack
  readonly layer: Layer.Layer<any, any, never>
}

/** The owners of the operator sessions and the sign-in failures, over the database in context. */
export const InboxSessionStores = Layer.merge(OperatorSessionsLive, SignInFailuresLive)

/** The route stack; `options` tune the web layer (session lifetime, poll interval). */
export const makeHarness = (options: InboxWebOptions = {}): Harness => {
  const stack = makeStack()
  const config = testConfig()
  const layer = InboxWebLive({ pollInterval: Duration.millis(20), ...options }).pipe(
    Layer.provideMerge(InboxSessionStores),
    Layer.provideMerge(AuthLive),
    Layer.provideMerge(ChangeFeedTest),
    Layer.provideMerge(AppConfigLive(config)),
    Layer.provideMerge(stack.layer)
  )
  return { stack, layer }
}

export const adminKey = Effect.map(Auth, (auth) => Redacted.value(auth.adminKey))

export interface Reply {
  readonly status: number
  readonly headers: Headers
  readonly body: string
  readonly location: string | null
  readonly setCookies: ReadonlyArray<string>
}

export interface CallOptions {
  readonly form?: Record<string, string>
  readonly body?: string
  readonly headers?: Record<string, string>
  /** Omit the Origin header a browser sends with a form POST. */
  readonly noOrigin?: boolean
}

/** A browser-like client: keeps cookies from Set-Cookie and sends them back, Host and Origin set. */
export const makeBrowser = Effect.gen(function* () {
  const jar = yield* Ref.make(new Map<string, string>())

  const remember = (setCookies: ReadonlyArray<string>) =>
    Ref.update(jar, (m) => {
      const next = new Map(m)
      for (const c of setCookies) {
        const [pair = "", ...attrs] = c.split(";")
        const eq = pair.indexOf("=")
        const name = pair.slice(0, eq).trim()
        const value = pair.slice(eq + 1).trim()
        const expired = attrs.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === ""
        if (expired) next.delete(name)
        else next.set(name, value)
      }
      return next
    })

  const call = (method: string, path: string, options: CallOptions = {}) =>
    Effect.gen(function* () {
      const cookies = [...(yield* Ref.get(jar))].map(([k, v]) => `${k}=${v}`).join("; ")
      const body = options.form !== undefined ? new URLSearchParams(options.form).toString() : options.body
      const headers: Record<string, string> = {
        host: HOST,
        ...(cookies === "" ? {} : { cookie: cookies }),
        ...(method === "POST" && options.noOrigin !== true ? { origin: ORIGIN } : {}),
        ...(body === undefined ? {} : { "content-type": "application/x-www-form-urlencoded" }),
        ...options.headers
      }
      const request = new Request(`${ORIGIN}${path}`, { method, headers, ...(body === undefined ? {} : { body }) })
      const pathname = new URL(request.url).pathname
      const response = yield* inboxApp(pathname).pipe(
        Effect.provideService(HttpServerRequest.HttpServerRequest, HttpServerRequest.fromWeb(request))
      )
      const web = HttpServerResponse.toWeb(response)
      const setCookies = web.headers.getSetCookie()
      yield* remember(setCookies)
      const isStream = (web.headers.get("content-type") ?? "").startsWith("text/event-stream")
      return {
        status: web.status,
        headers: web.headers,
        body: isStream ? "" : yield* Effect.promise(() => web.text()),
        location: web.headers.get("location"),
        setCookies,
        web
      }
    })

  /** The hidden `csrf` field of the page's (first) form. */
  const csrfOf = (page: string): string => /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? ""

  const signIn = (key: string) =>
    Effect.gen(function* () {
      const form = yield* call("GET", "/inbox/signin")
      return yield* call("POST", "/inbox/signin", { form: { csrf: csrfOf(form.body), key } })
    })

  /** Signs in with the admin key and answers the session's CSRF token (read from the pending page). */
  const signInAsAdmin = Effect.gen(function* () {
    const reply = yield* signIn(yield* adminKey)
    if (reply.status !== 303) throw new Error(`sign-in failed: ${reply.status} ${reply.body}`)
    const pending = yield* call("GET", "/inbox")
    return csrfOf(pending.body)
  })

  return { call, csrfOf, signIn, signInAsAdmin, jar }
})

export const pushSkill = (client: string, name: string, skillMd: string, files?: Record<string, string>) =>
  Effect.flatMap(Skills, (s) => s.put(name, skillMd, files)).pipe(as(client))

export const pushDelete = (client: string, name: string) => Effect.flatMap(Skills, (s) => s.remove(name)).pipe(as(client))

export const openApproval = (input: Partial<RunApprovalInput> = {}) =>
  Effect.flatMap(Inbox, (inbox) =>
    inbox.openRunApproval({
      run_id: "run_0123",
      client: "laptop",
      agent: "hermes",
      hermes_run_id: "h_77",
      request_id: "req_1",
      command: "rm -rf build/",
      description: "clean the build folder",
      choices: ["once", "session", "always", "deny"],
      ...input
    })
  )

export const rowState = (id: string) =>
  Effect.flatMap(Inbox, (inbox) => inbox.get(id)).pipe(Effect.map((o) => (o._tag === "Some" ? o.value.state : "missing")))

export { InboxWeb }
