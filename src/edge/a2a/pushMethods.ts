/**
 * The A2A push-notification methods (`Create/Get/List/DeleteTaskPushNotificationConfig`, and a
 * config given inline in SendMessage's configuration) over the `PushConfigs` store. Every method
 * reads the task through the runs service first, so another client's task and a made-up id are the
 * same TaskNotFound. A webhook URL is checked (`a2a.webhook_allow`, DNS, every address public)
 * before anything is recorded: an empty allow list is PushNotificationNotSupported, a refused URL
 * invalid params with the reason.
 */
import { createHash, randomBytes } from "node:crypto"
import type { GetTaskPushNotificationConfigRequest, ListTaskPushNotificationConfigsResponse, TaskPushNotificationConfig } from "@a2a-js/sdk"
import type { A2AError } from "@a2a-js/sdk/errors"
import { PushNotificationNotSupportedError, RequestMalformedError, TaskNotFoundError } from "@a2a-js/sdk/errors"
import { Context, Effect, Layer, Option, Redacted } from "effect"
import { AppConfig } from "../../config/AppConfig.ts"
import type { BridgeError } from "../../domain/errors.ts"
import { Caller } from "../../request/Caller.ts"
import { SECRET_PREFIX } from "../../services/a2aPush/deliver.ts"
import { PushConfigs, type PushConfig } from "../../services/a2aPush/PushConfigs.ts"
import { allowRulesOf } from "../../services/a2aPush/PushWorker.ts"
import { checkWebhook } from "../../services/a2aPush/webhookCheck.ts"
import { WebhookResolver } from "../../services/a2aPush/WebhookResolver.ts"
import { Runs } from "../../services/runs/Runs.ts"

export type PushEnv = PushConfigs | WebhookResolver | AppConfig
type Program<A> = Effect.Effect<A, BridgeError | A2AError, Runs | Caller | PushEnv>

const CONFIG_ID = /^[A-Za-z0-9._-]{1,64}$/
const TOKEN_MAX_CHARS = 512
/**
 * What a token or credential may hold: printable ASCII (space to `~`). Node refuses to send a header
 * with a control character or one past U+00FF (`tok€`, NUL); Latin-1 letters it would send are
 * read differently by receivers, so they are refused too.
 */
const HEADER_VALUE = /^[\x20-\x7e]*$/
/** An HTTP authentication scheme: a token (RFC 9110), at most 64 characters. */
const AUTH_SCHEME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/
const notHeaderValue = (field: string) =>
  new RequestMalformedError(`the push config's ${field} may hold only printable ASCII characters (space to '~'): it is sent as an HTTP header`)

/**
 * The signing secret of the config a request made or replaced, for the route to answer once beside
 * the method's result (`result.signingSecret`): the spec's answer types have no field for it. One
 * cell per request; a method that makes no config leaves it empty.
 */
export class IssuedSecret extends Context.Tag("agent-bridge/a2a/IssuedSecret")<IssuedSecret, { current: Redacted.Redacted<string> | undefined }>() {}

/** `IssuedSecretTest(cell)`: the request's cell as the route makes it (empty), for a test to read what a method issued. */
export const IssuedSecretTest = (cell: IssuedSecret["Type"] = { current: undefined }) => Layer.succeed(IssuedSecret, cell)

/** A new Standard Webhooks secret: `whsec_` and 32 random bytes, base64. */
const newSigningSecret = () => Redacted.make(`${SECRET_PREFIX}${randomBytes(32).toString("base64")}`)

/** A config as the client gave it, checked; what `attach` records once the task is known. */
export interface CheckedPush {
  /** "" when the client gave none (`attachPush` names it). */
  readonly id: string
  readonly url: string
  readonly token: string
  readonly tokenGiven: boolean
  readonly authScheme: string
  readonly authCredentials: string
  readonly signingSecret: Redacted.Redacted<string>
}

const wireOf = (c: PushConfig): TaskPushNotificationConfig => ({
  tenant: "",
  id: c.id,
  taskId: c.runId,
  url: c.url,
  token: c.token,
  authentication: c.authScheme === "" ? undefined : { scheme: c.authScheme, credentials: c.authCredentials }
})

/** Checks a config's fields and its URL now (nothing is recorded): the A2A error that refuses it, if any. */
export const checkPush = (given: TaskPushNotificationConfig): Effect.Effect<CheckedPush, A2AError, PushEnv> =>
  Effect.gen(function* () {
    if (given.url.length === 0) return yield* Effect.fail(new RequestMalformedError("the push config's url is required"))
    if (given.id.length > 0 && !CONFIG_ID.test(given.id)) return yield* Effect.fail(new RequestMalformedError("the push config's id must be 1 to 64 letters, digits, '.', '_' or '-'"))
    if (given.token.length > TOKEN_MAX_CHARS) return yield* Effect.fail(new RequestMalformedError(`the push config's token is over ${TOKEN_MAX_CHARS} characters`))
    if (!HEADER_VALUE.test(given.token)) return yield* Effect.fail(notHeaderValue("token"))
    const auth = given.authentication
    if (auth !== undefined) {
      if (auth.scheme.length > 0 && !AUTH_SCHEME.test(auth.scheme)) {
        return yield* Effect.fail(new RequestMalformedError("the push config's authentication.scheme must be 1 to 64 letters, digits or !#$%&'*+.^_`|~-"))
      }
      if (auth.credentials.length > TOKEN_MAX_CHARS) return yield* Effect.fail(new RequestMalformedError(`the push config's authentication.credentials is over ${TOKEN_MAX_CHARS} characters`))
      if (!HEADER_VALUE.test(auth.credentials)) return yield* Effect.fail(notHeaderValue("authentication.credentials"))
    }
    const config = yield* AppConfig
    yield* checkWebhook(given.url, allowRulesOf(config.a2a.webhook_allow)).pipe(
      Effect.mapError((e) => (e.kind === "off" ? new PushNotificationNotSupportedError(e.reason) : new RequestMalformedError(e.reason)))
    )
    return {
      id: given.id,
      url: given.url,
      // The token is also the signature's key: one the client did not choose is made here, and returned.
      token: given.token.length > 0 ? given.token : randomBytes(32).toString("base64url"),
      tokenGiven: given.token.length > 0,
      authScheme: auth?.scheme ?? "",
      authCredentials: auth?.credentials ?? "",
      // Used only when the config is new: a config replaced keeps its secret (PushConfigs.put).
      signingSecret: newSigningSecret()
    }
  })

/**
 * Records a checked config on a task the caller owns (the caller read it through the runs service).
 * A config without an id given inline in SendMessage is named after the message (`messageId`), so a
 * retried message replaces its config instead of adding one; otherwise the bridge names it.
 */
export const attachPush = (runId: string, push: CheckedPush, messageId?: string): Program<TaskPushNotificationConfig> =>
  Effect.gen(function* () {
    const caller = yield* Caller
    const store = yield* PushConfigs
    const id = push.id.length > 0
      ? push.id
      : messageId === undefined
      ? `pc_${randomBytes(8).toString("hex")}`
      : `msg_${createHash("sha256").update(messageId).digest("hex").slice(0, 16)}`
    const stored = yield* store.put({ runId, client: caller.client, ...push, id }).pipe(
      Effect.catchTag("TooManyConfigs", (e) => Effect.fail(new RequestMalformedError(`a task has at most ${e.max} push configs: delete one first`))),
      Effect.catchTags({ SqlError: Effect.die, ParseError: Effect.die })
    )
    const issued = yield* Effect.serviceOption(IssuedSecret)
    if (Option.isSome(issued) && Redacted.value(stored.signingSecret) !== "") issued.value.current = stored.signingSecret
    return wireOf(stored)
  })

/** The task, read as its owner would (TaskNotFound for another client's or a made-up id). */
const ownTask = (taskId: string) =>
  taskId.length === 0 ? Effect.fail(new RequestMalformedError("taskId is required")) : Effect.asVoid(Effect.flatMap(Runs, (runs) => runs.status(taskId, 0)))

const noSuchConfig = (taskId: string, id: string) => new TaskNotFoundError(`task ${taskId} has no push config ${JSON.stringify(id.slice(0, 64))}`)

/** Push switched off (the allow list is empty) is said before anything about the task. */
const pushOn = Effect.flatMap(AppConfig, (c) =>
  c.a2a.webhook_allow.length === 0
    ? Effect.fail(new PushNotificationNotSupportedError("this bridge sends no push notifications (a2a.webhook_allow is empty)"))
    : Effect.void)

export const createPush = (params: TaskPushNotificationConfig): Program<TaskPushNotificationConfig> =>
  Effect.gen(function* () {
    yield* pushOn
    yield* ownTask(params.taskId)
    return yield* attachPush(params.taskId, yield* checkPush(params))
  })

export const getPush = (params: GetTaskPushNotificationConfigRequest): Program<TaskPushNotificationConfig> =>
  Effect.gen(function* () {
    yield* ownTask(params.taskId)
    const found = yield* Effect.orDie(Effect.flatMap(PushConfigs, (s) => s.get(params.taskId, params.id)))
    if (Option.isNone(found)) return yield* Effect.fail(noSuchConfig(params.taskId, params.id))
    return wireOf(found.value)
  })

export const listPush = (taskId: string): Program<ListTaskPushNotificationConfigsResponse> =>
  Effect.gen(function* () {
    yield* ownTask(taskId)
    // At most A2A_PUSH_CONFIGS_PER_TASK: always one page.
    const configs = yield* Effect.orDie(Effect.flatMap(PushConfigs, (s) => s.list(taskId)))
    return { configs: configs.map(wireOf), nextPageToken: "" }
  })

export const deletePush = (taskId: string, id: string): Program<void> =>
  Effect.gen(function* () {
    yield* ownTask(taskId)
    const removed = yield* Effect.orDie(Effect.flatMap(PushConfigs, (s) => s.remove(taskId, id)))
    if (!removed) return yield* Effect.fail(noSuchConfig(taskId, id))
  })
