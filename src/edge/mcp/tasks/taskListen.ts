/**
 * `notifications/tasks` on a `subscriptions/listen` stream (2026-07-28): a client that declares
 * the extension and lists `notifications.taskIds` gets the acknowledgement with the ids it may
 * follow (its own tasks; another client's id is left out exactly like an unknown one), then a
 * `notifications/tasks` with the whole task, as `tasks/get` would answer it, each time one of them
 * changes, until it closes the stream. The SDK 2.4 serves `subscriptions/listen` itself with a
 * fixed set of notification kinds and no task ids, so the edge hands such a request here instead.
 * Each task not yet finished is followed with the runs service's `watch` (the run's signal and the
 * change feed, as `agent_run_wait` waits): a notification goes out when it changes, and nothing is
 * read while it does not (no timer).
 * The frames are served as a held stream (`../../sse.ts`, the one SSE writer): keep-alives, and
 * the end when the listener's key is revoked or rotated.
 */
import { Effect, Either, Option, Stream } from "effect"
import type { BridgeError } from "../../../domain/errors.ts"
import { type DetailedTask, TASKS_EXTENSION_ID } from "./protocol.ts"
import { sseFrame } from "../../sse.ts"
import { TASK_LISTEN_IDS_MAX } from "../../../domain/limits.ts"

const SUBSCRIPTION_ID_META_KEY = "io.modelcontextprotocol/subscriptionId"
const CAPABILITIES_META_KEY = "io.modelcontextprotocol/clientCapabilities"

type Json = Record<string, unknown>
const isObject = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)

export interface TaskListenRequest {
  readonly id: string | number
  readonly taskIds: ReadonlyArray<string>
  readonly declared: boolean
}

/** The body when it is a `subscriptions/listen` that asks for task notifications; else `undefined`. */
export const taskListenRequest = (body: unknown): TaskListenRequest | undefined => {
  if (!isObject(body) || body["method"] !== "subscriptions/listen" || !isObject(body["params"])) return undefined
  const id = body["id"]
  const notifications = body["params"]["notifications"]
  const taskIds = isObject(notifications) ? notifications["taskIds"] : undefined
  if ((typeof id !== "string" && typeof id !== "number") || !Array.isArray(taskIds)) return undefined
  const meta = body["params"]["_meta"]
  const caps = isObject(meta) ? meta[CAPABILITIES_META_KEY] : undefined
  const extensions = isObject(caps) ? caps["extensions"] : undefined
  return {
    id,
    taskIds: [...new Set(taskIds.filter((t): t is string => typeof t === "string"))].slice(0, TASK_LISTEN_IDS_MAX),
    declared: isObject(extensions) && isObject(extensions[TASKS_EXTENSION_ID])
  }
}

/** `-32021` for a listener that asks for task notifications without declaring the extension. */
export const missingCapabilityResponse = (id: string | number) =>
  new Response(JSON.stringify({
    jsonrpc: "2.0",
    id,
    error: { code: -32021, message: "Missing required client capability", data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID]: {} } } } }
  }), { status: 400, headers: { "content-type": "application/json" } })

const frame = (message: unknown) => sseFrame(JSON.stringify(message), "message")

const isFinal = (t: DetailedTask) => t.status === "completed" || t.status === "cancelled" || t.status === "failed"
/** What a notification is sent for: a new status, message or update time. */
const stamp = (t: DetailedTask) => `${t.status}\u0000${t.lastUpdatedAt}\u0000${t.statusMessage ?? ""}`

/**
 * The stream's frames: the acknowledgement, then the changes. `read` reads one task as the
 * request's caller; `watch` follows one (its task now, then after each change, ending after its
 * end). It never ends by itself (the client closes it, or the held stream ends it).
 */
export const listenFrames = <R>(
  req: TaskListenRequest,
  read: (taskId: string) => Effect.Effect<DetailedTask, BridgeError, R>,
  watch: (taskId: string) => Stream.Stream<DetailedTask, BridgeError, R>
): Stream.Stream<string, never, R> =>
  Stream.unwrap(Effect.gen(function* () {
    const meta = { [SUBSCRIPTION_ID_META_KEY]: req.id }
    const first = yield* Effect.forEach(req.taskIds, (id) => Effect.either(read(id)))
    const followed = new Map<string, string>()
    const open: Array<string> = []
    req.taskIds.forEach((id, i) => {
      const got = first[i]!
      if (Either.isLeft(got)) return
      followed.set(id, stamp(got.right))
      if (!isFinal(got.right)) open.push(id)
    })
    const ack = frame({
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: { notifications: { taskIds: [...followed.keys()] }, _meta: meta }
    })
    // A task that can no longer be read (deleted) is dropped from the stream.
    const changes = open.map((id) =>
      watch(id).pipe(
        Stream.catchAll(() => Stream.empty),
        Stream.filterMap((task) => {
          const now = stamp(task)
          if (now === followed.get(id)) return Option.none()
          followed.set(id, now)
          return Option.some(frame({ jsonrpc: "2.0", method: "notifications/tasks", params: { ...task, _meta: meta } }))
        })
      ))
    return Stream.concat(Stream.make(ack), Stream.concat(Stream.mergeAll(changes, { concurrency: "unbounded" }), Stream.never))
  }))
