/**
 * The A2A face on the daemon's listener (routes in http/app.ts, behind its host guard): the card at
 * `/.well-known/agent-card.json` (public, GET) and JSON-RPC at `POST /a2a` (origin guard, bearer
 * key, scope `a2a`). Both 404 while `a2a.enabled` (or `bridge.enabled`) is false. The SDK's
 * `JsonRpcTransportHandler` checks the envelope, decodes the params and writes the spec's errors;
 * the methods are `handler.ts`, over the runs service.
 */
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { JsonRpcTransportHandler, ServerCallContext } from "@a2a-js/sdk/server"
import { A2AError } from "@a2a-js/sdk/errors"
import { type Context, Effect, Option, Redacted, Runtime } from "effect"
import { AppConfig } from "../../config/AppConfig.ts"
import { Redactor } from "../../common/Redactor.ts"
import { InvalidInput } from "../../domain/errors.ts"
import { NUL_REFUSAL, nulPath, pathText } from "../../domain/text.ts"
import { A2A_BODY_MAX_BYTES, A2A_JSON_DEPTH_MAX } from "../../domain/limits.ts"
import type { CallerShape } from "../../request/Caller.ts"
import { asRequest, runExit, settle } from "../runner.ts"
import { Agents } from "../../services/agents/Agents.ts"
import { Auth } from "../../services/auth/Auth.ts"
import { bearerToken } from "../../services/auth/apiKeys.ts"
import { ClientQuotas } from "../../services/quotas/ClientQuotas.ts"
import { Runs } from "../../services/runs/Runs.ts"
import { nestsDeeperThan } from "../http/jsonDepth.ts"
import { originAllowed } from "../http/originGuard.ts"
import { readBodyUpTo } from "../http/webExchange.ts"
import { bridgeErrorResponse, forbidden, jsonError, notFound } from "../http/responses.ts"
import { agentCard, agentCardJson, PUBLIC_CARD_VERSION } from "./card.ts"
import { SERVER_VERSION } from "../mcp/mcpServer.ts"
import { requestHasOperatorKey } from "../http/operatorKey.ts"
import { a2aErrorOf, type A2ARunner, makeHandler } from "./handler.ts"
import { a2aSseResponse } from "./sse.ts"
import { IssuedSecret, type PushEnv } from "./pushMethods.ts"

const enabled = Effect.map(AppConfig, (c) => c.a2a.enabled && c.bridge.enabled)
/** Push notifications are offered when somewhere is allowed to receive them. */
const pushOffered = (c: Context.Tag.Service<AppConfig>) => c.a2a.webhook_allow.length > 0

/** The base URL clients reached the card by: the Host that passed the host guard. */
const baseUrl = (req: HttpServerRequest.HttpServerRequest) => `http://${req.headers["host"] ?? "127.0.0.1"}`

export const agentCardRoute = Effect.gen(function* () {
  if (!(yield* enabled)) return notFound()
  const req = yield* HttpServerRequest.HttpServerRequest
  if (req.method !== "GET" && req.method !== "HEAD") {
    return jsonError(405, "method_not_allowed", "the agent card takes GET").pipe(HttpServerResponse.setHeader("allow", "GET, HEAD"))
  }
  // The bridge's version only to the operator's keys (admin key, metrics token).
  const version = (yield* requestHasOperatorKey) ? SERVER_VERSION : PUBLIC_CARD_VERSION
  return HttpServerResponse.unsafeJson(agentCardJson(baseUrl(req), yield* Agents.list, pushOffered(yield* AppConfig), version))
})

const rpcError = (status: number, code: number, message: string, id: unknown = null) =>
  HttpServerResponse.unsafeJson({ jsonrpc: "2.0", id, error: { code, message } }, { status })

/**
 * Runs a method's program for the request (`../runner.ts`): as the caller, bridge errors as A2A
 * errors (redacted), defects as incidents. `signal` (a stream closed) interrupts the program in flight.
 */
const makeRunner = (runtime: Runtime.Runtime<Runs | Redactor | PushEnv>, caller: CallerShape, signal: AbortSignal, issued: IssuedSecret["Type"]): A2ARunner => async (program) => {
  const exit = await runExit(runtime, asRequest(Effect.provideService(program, IssuedSecret, issued), { caller }), signal)
  const redactor = Runtime.runSync(runtime)(Redactor)
  const outcome = await settle(runtime as Runtime.Runtime<never>, redactor, exit, "a2a request failed", (e) => e instanceof A2AError)
  switch (outcome._tag) {
    case "Done":
      return outcome.value
    case "Refused":
      throw a2aErrorOf(outcome.error, outcome.text)
    case "Own":
      throw outcome.error
    case "Interrupted":
      throw new A2AError({ message: "the request was closed", metadata: { bridge_code: "bridge.unavailable" } })
    case "Incident":
      throw new A2AError({ message: `internal error (incident ${outcome.incident})`, metadata: { bridge_code: "bridge.internal" } })
  }
}

/** The JSON-RPC answer with `result.signingSecret` when the request made a push config (the result is an object then). */
const withSigningSecret = (out: unknown, secret: Redacted.Redacted<string> | undefined): unknown => {
  if (secret === undefined || typeof out !== "object" || out === null) return out
  const result = (out as { result?: unknown }).result
  if (typeof result !== "object" || result === null || Array.isArray(result)) return out
  return { ...out, result: { ...result, signingSecret: Redacted.value(secret) } }
}

/** A request's id when it has a usable one (a string or a number), else null. */
const idOf = (parsed: unknown): string | number | null => {
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return null
  const id = (parsed as { id?: unknown }).id
  return typeof id === "string" || typeof id === "number" ? id : null
}

const isAsyncIterable = (u: unknown): u is AsyncGenerator<unknown> => typeof u === "object" && u !== null && Symbol.asyncIterator in u

export const a2aRoute = Effect.gen(function* () {
  if (!(yield* enabled)) return notFound()
  const req = yield* HttpServerRequest.HttpServerRequest
  const config = yield* AppConfig
  if (!originAllowed(req.headers["origin"], config.bridge.allowed_origins, req.headers["host"])) {
    return forbidden("this Origin is not allowed (add it to bridge.allowed_origins)")
  }
  const checked = yield* Effect.flatMap(Auth, (auth) => Effect.either(auth.authenticate(bearerToken(req.headers["authorization"]))))
  // The database server out: 503 store_unavailable, which the client retries.
  if (checked._tag === "Left") return bridgeErrorResponse(checked.left)
  const caller = checked.right
  if (Option.isNone(caller)) return forbidden()
  // An OAuth access token is bound to an MCP server (RFC 8707): never the A2A face.
  if (caller.value.audience !== undefined) return forbidden("an OAuth access token serves only the MCP server it was issued for")
  if (!caller.value.scopes.includes("a2a")) return forbidden("this key lacks the a2a scope (agent-bridge client add NAME: new keys have it)")
  if (req.method !== "POST") return jsonError(405, "method_not_allowed", "the A2A endpoint takes POST").pipe(HttpServerResponse.setHeader("allow", "POST"))

  // Read up to the limit only and answer: the rest is discarded by the server, so the client reads
  // this 413 (reading the body whole under the limit failed the read mid-body: a reset, no answer).
  // The connection is closed after it rather than kept for another request behind an unread body.
  const body = yield* readBodyUpTo(req, A2A_BODY_MAX_BYTES)
  if (body.over) {
    return rpcError(413, -32600, `the request body is over ${A2A_BODY_MAX_BYTES} bytes`).pipe(HttpServerResponse.setHeader("connection", "close"))
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(body.bytes.toString("utf8"))
  } catch {
    return rpcError(200, -32700, "the request body is not JSON")
  }
  // Refused before any decoder walks it: the SDK's recursive decoding overflowed the stack (-32603).
  if (nestsDeeperThan(parsed, A2A_JSON_DEPTH_MAX)) {
    return rpcError(200, -32700, `the request body nests deeper than ${A2A_JSON_DEPTH_MAX} levels`, idOf(parsed))
  }
  // A NUL in any string of the request is invalid input (PostgreSQL can neither store nor look one up),
  // refused before any method runs, as the method's own refusal of invalid input reads.
  const nul = nulPath(parsed)
  if (nul !== undefined) {
    const refusal = new InvalidInput({ message: `invalid arguments: ${pathText(nul)} ${NUL_REFUSAL}` })
    return HttpServerResponse.unsafeJson({ jsonrpc: "2.0", id: idOf(parsed), error: JsonRpcTransportHandler.mapToJSONRPCError(a2aErrorOf(refusal, refusal.message)) })
  }
  // JSON-RPC's own "invalid request" (-32600) for a bad envelope; the SDK would call it invalid params.
  const envelope = parsed as { jsonrpc?: unknown; method?: unknown; id?: unknown } | null
  if (typeof envelope !== "object" || envelope === null || Array.isArray(envelope) || envelope.jsonrpc !== "2.0" || typeof envelope.method !== "string") {
    return rpcError(200, -32600, "not a JSON-RPC 2.0 request (jsonrpc \"2.0\" and a method are required; batches are not taken)", idOf(parsed))
  }

  const runtime = yield* Effect.runtime<Runs | Redactor | PushEnv>()
  const agents = yield* Effect.runtime<Agents>()
  const base = baseUrl(req)
  const card = () => Runtime.runPromise(agents)(Effect.map(Agents.list, (list) => agentCard(base, list)))
  const abort = new AbortController()
  // A push config's signing secret, made by this request: answered once, beside the result.
  const issued: IssuedSecret["Type"] = { current: undefined }
  const transport = new JsonRpcTransportHandler(makeHandler(makeRunner(runtime, caller.value, abort.signal, issued), card))
  const id = (parsed as { id?: unknown }).id ?? null
  const quotas = yield* ClientQuotas
  const redactor = yield* Redactor
  const answer = yield* Effect.promise(async () => {
    const out = await transport.handle(parsed as Record<string, unknown>, new ServerCallContext())
    if (!isAsyncIterable(out)) return { json: withSigningSecret(out, issued.current) }
    // A stream takes one of the client's open-stream slots before anything of it runs (its first
    // step starts the run): a client at its quota is answered with the typed error, nothing started.
    const slot = await Effect.runPromise(Effect.either(quotas.openStream(caller.value.client, "an A2A stream")))
    if (slot._tag === "Left") {
      await out.return(undefined).catch(() => undefined)
      const refused = a2aErrorOf(slot.left, redactor.text(slot.left.message))
      return { json: { jsonrpc: "2.0", id, error: JsonRpcTransportHandler.mapToJSONRPCError(refused) } }
    }
    const release = slot.right
    // A stream's first response decides the answer: a failure before it is plain JSON-RPC (the
    // client reads the typed error), else the event stream begins with it.
    try {
      const first = await out.next()
      if (first.done === true) {
        await Effect.runPromise(release)
        return { json: { jsonrpc: "2.0", id, result: null } }
      }
      return { stream: out, first: first.value, release }
    } catch (error) {
      await Effect.runPromise(release)
      return { json: { jsonrpc: "2.0", id, error: JsonRpcTransportHandler.mapToJSONRPCError(error) } }
    }
  })
  if ("json" in answer) return HttpServerResponse.unsafeJson(answer.json)
  return yield* a2aSseResponse({
    events: answer.stream,
    first: answer.first,
    id,
    abort,
    token: bearerToken(req.headers["authorization"]),
    client: caller.value.client,
    release: answer.release
  })
})
