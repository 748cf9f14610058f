/**
 * A2A push notifications (issue 27, item 3) against a daemon, the simulator and a loopback
 * receiver: the config methods (raw JSON-RPC and the @a2a-js/sdk client), signed deliveries with a
 * dedupe id, retries, a restart with a notification pending, and every webhook the bridge must
 * refuse (refused at creation with nothing recorded, or at delivery when DNS changed).
 */
import { Role, type Message } from "@a2a-js/sdk"
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from "@a2a-js/sdk/client"
import { Effect, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startSimulatorAsync, type SimulatorAsync } from "../../src/hermes/sim/layer.ts"
import { isTerminalStatus } from "../../src/hermes/sim/run.ts"
import { PushConfigs } from "../../src/services/a2aPush/PushConfigs.ts"
import { Ledger } from "../../src/services/runs/Ledger.ts"
import { until } from "../support/poll.ts"
import { WebhookResolverTest } from "../../src/services/a2aPush/WebhookResolver.ts"
import { startDaemon, type TestDaemon, tempDir, testConfig } from "../support/daemon.ts"
import { createHmac, randomBytes } from "node:crypto"
import { documentedVerifier, eventually, type Receiver, startReceiver, verifySignature } from "./support/pushReceiver.ts"

type Json = Record<string, any>

let sim: SimulatorAsync
let daemon: TestDaemon
let receiver: Receiver
let alice: string
let bob: string
let next = 1
const dns = new Map<string, ReadonlyArray<string>>()
const asked: Array<string> = []
const dataDir = tempDir()
// 10.0.0.0/8 and private.test are allowed on purpose: a private address is never reached, allowed or not.
const ALLOW = ["127.0.0.1", "hooks.test", "rebind.test", "private.test", "mixed.test", "10.0.0.0/8", "https://8.8.8.8/only/"]

const rpcAt = (d: TestDaemon) => async (key: string, method: string, params: Json = {}): Promise<Json> => {
  const res = await fetch(`${d.url}/a2a`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: next++, method, params })
  })
  return (await res.json()) as Json
}
const rpc = (key: string, method: string, params: Json = {}) => rpcAt(daemon)(key, method, params)
const msg = (text: string) => ({ messageId: `m-${Math.random().toString(16).slice(2)}`, role: "ROLE_USER", parts: [{ text }] })
const startTask = async (key: string, text: string): Promise<Json> => (await rpc(key, "SendMessage", { message: msg(text), configuration: { returnImmediately: true } }))["result"].task
const configsOf = (runId: string) => daemon.use(Effect.flatMap(PushConfigs, (s) => s.list(runId)))
const outboxOf = (runId: string) => daemon.use(Effect.flatMap(PushConfigs, (s) => s.outbox(runId)))
const forTask = (id: string) => receiver.received.filter((r) => r.json["task"]?.id === id)
const stateOf = (r: { json: Json }) => r.json["task"]?.status?.state as string

const boot = () =>
  startDaemon(
    testConfig({ hermes: { url: sim.url, key: sim.profile("default").key }, a2a: { webhook_allow: ALLOW } }, dataDir),
    undefined,
    { webhookResolver: WebhookResolverTest(dns, asked) }
  )

beforeAll(async () => {
  sim = await startSimulatorAsync({})
  receiver = await startReceiver()
  dns.set("hooks.test", ["127.0.0.1"])
  dns.set("rebind.test", ["127.0.0.1"])
  dns.set("private.test", ["10.1.1.1"])
  dns.set("mixed.test", ["127.0.0.1", "192.168.0.7"])
  dns.set("metadata.internal.test", ["169.254.169.254"])
  daemon = await boot()
  alice = await daemon.addClient("alice", ["agents", "a2a"])
  bob = await daemon.addClient("bob", ["agents", "a2a"])
}, 60_000)
afterAll(async () => {
  await daemon?.close()
  await receiver?.close()
  await sim?.close()
})

describe("push notifications", () => {
  it("the card offers them when a2a.webhook_allow names somewhere", async () => {
    const card = (await (await fetch(`${daemon.url}/.well-known/agent-card.json`)).json()) as Json
    expect(card["capabilities"].pushNotifications).toBe(true)
  })

  it("a config on a task: each state change is POSTed, signed with the token, with a dedupe id in the header and the body", async () => {
    const task = await startTask(alice, "[sim:slow=1s] build it")
    const created = await rpc(alice, "CreateTaskPushNotificationConfig", { taskId: task.id, url: receiver.url, token: "tok-alice-1" })
    expect(created["result"]).toMatchObject({ taskId: task.id, url: receiver.url, token: "tok-alice-1" })
    await eventually(() => forTask(task.id).some((r) => stateOf(r) === "TASK_STATE_COMPLETED"), "the completed notification")
    const all = forTask(task.id)
    for (const r of all) {
      expect(r.headers["content-type"]).toBe("application/a2a+json")
      expect(r.headers["x-a2a-notification-token"]).toBe("tok-alice-1")
      expect(verifySignature("tok-alice-1", r.headers, r.body)).toBe(true)
      expect(verifySignature("another-token", r.headers, r.body)).toBe(false)
      expect(r.json["task"].metadata.bridge.delivery_id).toBe(r.headers["x-a2a-delivery-id"])
    }
    // One notification per state, each its own id; the last carries the output artifact.
    const ids = all.map((r) => r.headers["x-a2a-delivery-id"])
    expect(new Set(ids).size).toBe(ids.length)
    const done = all.find((r) => stateOf(r) === "TASK_STATE_COMPLETED")!
    expect(done.json["task"].artifacts[0].parts[0].text).toContain("build it")
    let rows = await outboxOf(task.id)
    for (let i = 0; i < 100 && rows.some((d) => d.doneAt === null); i++) {
      await new Promise((r) => setTimeout(r, 50))
      rows = await outboxOf(task.id)
    }
    expect(rows.map((d) => d.outcome)).toEqual(rows.map(() => "HTTP 200"))
    expect(rows.map((d) => d.deliveryId).sort()).toEqual([...ids].sort())
  })

  it("signed the Standard Webhooks way: the secret is answered once, at creation; the receiver verifies each notification with it (the documented snippet) and refuses forged ones", async () => {
    const verify = documentedVerifier()
    const task = await startTask(alice, "[sim:slow=1s] signed")
    const created = (await rpc(alice, "CreateTaskPushNotificationConfig", { taskId: task.id, id: "signed", url: `${receiver.url}/signed`, token: "tok-signed" }))["result"]
    const secret = created.signingSecret as string
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    const key = secret.slice("whsec_".length)
    // Never shown again: not by Get or List.
    expect(JSON.stringify((await rpc(alice, "GetTaskPushNotificationConfig", { taskId: task.id, id: "signed" }))["result"])).not.toContain(key)
    expect(JSON.stringify((await rpc(alice, "ListTaskPushNotificationConfigs", { taskId: task.id }))["result"])).not.toContain(key)
    await eventually(() => forTask(task.id).some((r) => stateOf(r) === "TASK_STATE_COMPLETED"), "the completed notification")
    const all = forTask(task.id)
    for (const r of all) {
      expect(verify(secret, r.headers, r.body)).toBe(true)
      expect(r.headers["webhook-id"]).toBe(r.headers["x-a2a-delivery-id"])
      expect(Number(r.headers["webhook-timestamp"])).toBeCloseTo(Date.now() / 1000, -2)
      // The secret never travels with a notification.
      expect(JSON.stringify(r.headers) + r.body).not.toContain(key)
    }
    const r = all[0]!
    const id = String(r.headers["webhook-id"])
    const ts = String(r.headers["webhook-timestamp"])
    // What one who saw a notification has (its token, its headers) signs nothing the receiver takes.
    const withToken = `v1,${createHmac("sha256", "tok-signed").update(`${id}.${ts}.${r.body}`).digest("base64")}`
    expect(verify(secret, { ...r.headers, "webhook-signature": withToken }, r.body)).toBe(false)
    expect(verify(secret, r.headers, r.body.replace("TASK_STATE", "TASK_STATX"))).toBe(false)
    expect(verify(secret, { ...r.headers, "webhook-id": "pn_another" }, r.body)).toBe(false)
    expect(verify(secret, { ...r.headers, "webhook-timestamp": String(Number(ts) + 1) }, r.body)).toBe(false)
    expect(verify(`whsec_${randomBytes(32).toString("base64")}`, r.headers, r.body)).toBe(false)
    // A replay later than the tolerance is refused too.
    expect(verify(secret, r.headers, r.body, Number(ts) + 301)).toBe(false)
    // The same config created again (a retry) keeps its secret, and answers it.
    const again = (await rpc(alice, "CreateTaskPushNotificationConfig", { taskId: task.id, id: "signed", url: `${receiver.url}/signed`, token: "tok-signed" }))["result"]
    expect(again.signingSecret).toBe(secret)
    // Another config has another secret.
    const other = (await rpc(alice, "CreateTaskPushNotificationConfig", { taskId: task.id, id: "signed-2", url: `${receiver.url}/signed` }))["result"]
    expect(other.signingSecret).toMatch(/^whsec_/)
    expect(other.signingSecret).not.toBe(secret)
  })

  it("a config given inline in SendMessage: its signing secret is answered beside the task, and verifies its notifications", async () => {
    const verify = documentedVerifier()
    const sent = (await rpc(alice, "SendMessage", { message: msg("inline signed"), configuration: { taskPushNotificationConfig: { url: receiver.url } } }))["result"]
    expect(sent.signingSecret).toMatch(/^whsec_/)
    await eventually(() => forTask(sent.task.id).some((r) => stateOf(r) === "TASK_STATE_COMPLETED"), "the inline config's notification")
    expect(forTask(sent.task.id).every((r) => verify(sent.signingSecret, r.headers, r.body))).toBe(true)
    // A SendMessage without a config answers none.
    expect((await rpc(alice, "SendMessage", { message: msg("no config") }))["result"].signingSecret).toBeUndefined()
  })

  it("a body that was changed after signing fails the receiver's check", async () => {
    const r = receiver.received[0]!
    expect(verifySignature("tok-alice-1", r.headers, r.body.replace("TASK_STATE", "TASK_STATX"))).toBe(false)
  })

  it("a config given inline in SendMessage is recorded on the new task; without a token the bridge makes one and returns it", async () => {
    const sent = await rpc(alice, "SendMessage", { message: msg("inline push"), configuration: { taskPushNotificationConfig: { url: receiver.url } } })
    const task = sent["result"].task
    expect(task.status.state).toBe("TASK_STATE_COMPLETED")
    const listed = (await rpc(alice, "ListTaskPushNotificationConfigs", { taskId: task.id }))["result"].configs
    expect(listed).toHaveLength(1)
    const token = listed[0].token as string
    expect(token.length).toBeGreaterThanOrEqual(40)
    await eventually(() => forTask(task.id).some((r) => stateOf(r) === "TASK_STATE_COMPLETED"), "the inline config's notification")
    expect(forTask(task.id).every((r) => verifySignature(token, r.headers, r.body))).toBe(true)
  })

  it("a retried SendMessage (same messageId) with an inline config is the same config, its token kept", async () => {
    const m = msg("retried inline")
    const first = (await rpc(alice, "SendMessage", { message: m, configuration: { returnImmediately: true, taskPushNotificationConfig: { url: receiver.url } } }))["result"].task
    const before = (await rpc(alice, "ListTaskPushNotificationConfigs", { taskId: first.id }))["result"].configs
    const again = (await rpc(alice, "SendMessage", { message: m, configuration: { returnImmediately: true, taskPushNotificationConfig: { url: receiver.url } } }))["result"].task
    expect(again.id).toBe(first.id)
    expect((await rpc(alice, "ListTaskPushNotificationConfigs", { taskId: first.id }))["result"].configs).toEqual(before)
    expect(before).toHaveLength(1)
  })

  it("what is sent is redacted like every other read", async () => {
    const task = (await rpc(alice, "SendMessage", { message: msg("[sim:secrets] leak") }))["result"].task
    await rpc(alice, "CreateTaskPushNotificationConfig", { taskId: task.id, url: receiver.url })
    await eventually(() => forTask(task.id).length > 0, "the notification")
    const body = forTask(task.id)[0]!.body
    expect(body).not.toMatch(/sk-proj-[A-Za-z0-9]{10}/)
    expect(body).toContain("***REDACTED***")
  })

  it("Authorization is sent when the config has authentication", async () => {
    const task = await startTask(alice, "with auth")
    await rpc(alice, "CreateTaskPushNotificationConfig", { taskId: task.id, url: receiver.url, token: "t", authentication: { scheme: "Bearer", credentials: "receiver-secret" } })
    await eventually(() => forTask(task.id).some((r) => stateOf(r) === "TASK_STATE_COMPLETED"), "the notification")
    expect(forTask(task.id)[0]!.headers["authorization"]).toBe("Bearer receiver-secret")
  })

  it("a receiver that fails is tried again with the same delivery id until it answers 2xx", async () => {
    // A finished task: one notification (its current state), so the script's answers are all its.
    const task = (await rpc(alice, "SendMessage", { message: msg("retry me") }))["result"].task
    expect(task.status.state).toBe("TASK_STATE_COMPLETED")
    receiver.script.push({ status: 500, path: "/hook/retry" }, { status: 503, path: "/hook/retry" })
    await rpc(alice, "CreateTaskPushNotificationConfig", { taskId: task.id, id: "retry", url: `${receiver.url}/retry`, token: "tok-r" })
    await eventually(() => forTask(task.id).filter((r) => r.status === 200).length >= 1, "a delivery after the failures")
    const first = forTask(task.id).slice(0, 3)
    expect(first.map((r) => r.status)).toEqual([500, 503, 200])
    expect(new Set(first.map((r) => r.headers["x-a2a-delivery-id"])).size).toBe(1)
    // The receiver answered before the bridge recorded it: read until it has.
    const id = first[0]!.headers["x-a2a-delivery-id"]
    let row = (await outboxOf(task.id)).find((d) => d.deliveryId === id)
    for (let i = 0; i < 100 && row?.doneAt === null; i++) {
      await new Promise((r) => setTimeout(r, 50))
      row = (await outboxOf(task.id)).find((d) => d.deliveryId === id)
    }
    expect(row).toMatchObject({ attempts: 3, outcome: "HTTP 200" })
  }, 30_000)

  it("Get, List and Delete; a deleted config's task sends no more", async () => {
    const task = await startTask(alice, "[sim:slow=3s] manage")
    const { signingSecret, ...made } = (await rpc(alice, "CreateTaskPushNotificationConfig", { taskId: task.id, id: "cfg-1", url: receiver.url, token: "x" }))["result"]
    expect(signingSecret).toMatch(/^whsec_/)
    expect((await rpc(alice, "GetTaskPushNotificationConfig", { taskId: task.id, id: "cfg-1" }))["result"]).toEqual(made)
    expect((await rpc(alice, "ListTaskPushNotificationConfigs", { taskId: task.id }))["result"].configs).toEqual([made])
    expect((await rpc(alice, "DeleteTaskPushNotificationConfig", { taskId: task.id, id: "cfg-1" }))["result"]).toBeNull()
    expect(await configsOf(task.id)).toEqual([])
    expect((await rpc(alice, "GetTaskPushNotificationConfig", { taskId: task.id, id: "cfg-1" }))["error"].code).toBe(-32001)
    expect((await rpc(alice, "DeleteTaskPushNotificationConfig", { taskId: task.id, id: "cfg-1" }))["error"].code).toBe(-32001)
  })

  it("configs per task are bounded", async () => {
    const task = await startTask(alice, "many configs")
    for (let i = 0; i < 10; i++) expect((await rpc(alice, "CreateTaskPushNotificationConfig", { taskId: task.id, id: `c${i}`, url: receiver.url }))["result"]).toBeDefined()
    const over = await rpc(alice, "CreateTaskPushNotificationConfig", { taskId: task.id, id: "c10", url: receiver.url })
    expect(over["error"]).toMatchObject({ code: -32602 })
    expect(over["error"].message).toContain("at most 10")
    expect(await configsOf(task.id)).toHaveLength(10)
  })

  it("another client's task, or a made-up id, is task not found for every config method, and nothing is recorded", async () => {
    const mine = await startTask(alice, "private push")
    await rpc(alice, "CreateTaskPushNotificationConfig", { taskId: mine.id, id: "own", url: receiver.url })
    for (const taskId of [mine.id, "run_00000000000000000000000000000000"]) {
      expect((await rpc(bob, "CreateTaskPushNotificationConfig", { taskId, url: receiver.url }))["error"].code).toBe(-32001)
      expect((await rpc(bob, "GetTaskPushNotificationConfig", { taskId, id: "own" }))["error"].code).toBe(-32001)
      expect((await rpc(bob, "ListTaskPushNotificationConfigs", { taskId }))["error"].code).toBe(-32001)
      expect((await rpc(bob, "DeleteTaskPushNotificationConfig", { taskId, id: "own" }))["error"].code).toBe(-32001)
    }
    expect((await configsOf(mine.id)).map((c) => c.id)).toEqual(["own"])
    expect((await rpc(alice, "CreateTaskPushNotificationConfig", { taskId: "", url: receiver.url }))["error"].code).toBe(-32602)
  })

  describe("webhooks the bridge never reaches are refused at creation, and nothing is recorded", () => {
    const port = () => receiver.port
    const cases: Array<[string, () => string, RegExp]> = [
      ["private 10/8 (even though allowed)", () => `http://10.0.0.1:${port()}/h`, /private/],
      ["private 172.16/12", () => `http://172.16.5.4/h`, /private/],
      ["private 192.168/16", () => `http://192.168.1.1/h`, /private/],
      ["link-local", () => `http://169.254.10.10/h`, /link-local/],
      ["the metadata address", () => `http://169.254.169.254/latest/meta-data`, /metadata/],
      ["the metadata host name", () => `http://metadata.google.internal/computeMetadata/v1/`, /metadata/],
      ["a name resolving to the metadata address", () => `http://metadata.internal.test/`, /not in|metadata/],
      ["EC2's IPv6 metadata address", () => `http://[fd00:ec2::254]/`, /metadata/],
      ["unique-local IPv6", () => `http://[fd12:3456::1]/`, /private/],
      ["link-local IPv6", () => `http://[fe80::1]/`, /link-local/],
      ["IPv4-mapped IPv6 of a private address", () => `http://[::ffff:10.0.0.1]:${port()}/h`, /private/],
      ["IPv4-mapped IPv6 of loopback", () => `http://[::ffff:127.0.0.1]:${port()}/h`, /private/],
      ["IPv6 loopback (not named by an address entry)", () => `http://[::1]:${port()}/h`, /loopback/],
      ["the unspecified address", () => `http://0.0.0.0:${port()}/h`, /unspecified/],
      ["a host name resolving to a private address", () => `http://private.test:${port()}/h`, /private\.test resolves to 10\.1\.1\.1/],
      ["a host name with one private answer among others", () => `http://mixed.test:${port()}/h`, /192\.168\.0\.7/],
      ["a host name that does not resolve", () => `http://nowhere.test/h`, /not in|does not resolve/],
      ["a public address outside the allow list", () => `https://1.1.1.1/h`, /not in a2a.webhook_allow/],
      ["a public address outside its URL prefix", () => `https://8.8.8.8/other`, /not in a2a.webhook_allow/],
      ["a scheme other than http(s)", () => `ftp://127.0.0.1/h`, /http or https/],
      ["a URL with a password", () => `http://u:p@127.0.0.1:${port()}/h`, /user or password/],
      ["not a URL", () => `hook`, /absolute URL/]
    ]
    it.each(cases)("%s", async (_name, url, why) => {
      const task = await startTask(alice, "ssrf target")
      const created = await rpc(alice, "CreateTaskPushNotificationConfig", { taskId: task.id, url: url() })
      expect(created["error"]?.code).toBe(-32602)
      expect(created["error"].message).toMatch(why)
      expect(await configsOf(task.id)).toEqual([])
      // Inline in SendMessage: refused before the run starts (no task, no config).
      const before = (await rpc(alice, "ListTasks", { pageSize: 100 }))["result"].tasks.length
      const inline = await rpc(alice, "SendMessage", { message: msg("never started"), configuration: { taskPushNotificationConfig: { url: url() } } })
      expect(inline["error"]?.code).toBe(-32602)
      expect((await rpc(alice, "ListTasks", { pageSize: 100 }))["result"].tasks.length).toBe(before)
    })
  })

  describe("a token or credential Node would refuse to send as a header is refused at creation, naming the field, and nothing is recorded", () => {
    const cases: Array<[string, Json, RegExp]> = [
      ["a token past Latin-1 (tok€)", { token: "tok€" }, /token/],
      ["credentials past Latin-1 (cred\\u0100)", { token: "t", authentication: { scheme: "Bearer", credentials: "cred\u0100" } }, /authentication\.credentials/],
      ["a NUL in the token", { token: "a\u0000b" }, /token/],
      ["a control character in the credentials", { authentication: { scheme: "Bearer", credentials: "a\u0007b" } }, /authentication\.credentials/],
      ["DEL in the token", { token: "a\u007fb" }, /token/],
      ["CR LF in the credentials", { authentication: { scheme: "Bearer", credentials: "a\r\nx-evil: 1" } }, /authentication\.credentials/],
      ["a scheme that is not a token", { authentication: { scheme: "Bearer x", credentials: "c" } }, /authentication\.scheme/]
    ]
    it.each(cases)("%s", async (_name, fields, field) => {
      const task = await startTask(alice, "bad header value")
      const created = await rpc(alice, "CreateTaskPushNotificationConfig", { taskId: task.id, url: receiver.url, ...fields })
      expect(created["error"]?.code).toBe(-32602)
      expect(created["error"].message).toMatch(field)
      expect(await configsOf(task.id)).toEqual([])
      const before = (await rpc(alice, "ListTasks", { pageSize: 100 }))["result"].tasks.length
      const inline = await rpc(alice, "SendMessage", { message: msg("never started"), configuration: { taskPushNotificationConfig: { url: receiver.url, ...fields } } })
      expect(inline["error"]?.code).toBe(-32602)
      expect(inline["error"].message).toMatch(field)
      expect((await rpc(alice, "ListTasks", { pageSize: 100 }))["result"].tasks.length).toBe(before)
    })
  })

  it("a DNS answer that changes to a private address after creation is refused at delivery: the receiver hears nothing", async () => {
    const task = await startTask(alice, "[sim:slow=2s] rebind")
    // The name rebinds after its first answer (the check at creation): public then, private at
    // every delivery, however soon the worker (woken by the put) makes its first attempt.
    let lookups = 0
    const get = dns.get.bind(dns)
    dns.get = (host: string) => (host === "rebind.test" ? (++lookups === 1 ? ["127.0.0.1"] : ["10.9.9.9"]) : get(host))
    const created = await rpc(alice, "CreateTaskPushNotificationConfig", { taskId: task.id, url: `http://rebind.test:${receiver.port}/h`, token: "rb" })
    expect(created["result"]).toBeDefined()
    const deadline = Date.now() + 4000
    while (Date.now() < deadline && !(await outboxOf(task.id)).some((d) => (d.outcome ?? "").includes("10.9.9.9"))) await new Promise((r) => setTimeout(r, 100))
    const rows = await outboxOf(task.id)
    expect(rows.length).toBeGreaterThan(0)
    expect(rows.every((d) => d.doneAt === null)).toBe(true)
    expect(rows.some((d) => (d.outcome ?? "").includes("rebind.test resolves to 10.9.9.9"))).toBe(true)
    expect(forTask(task.id)).toEqual([])
    // Put back, the same notifications go out (the row was kept, its backoff resumes).
    dns.get = get
    dns.set("rebind.test", ["127.0.0.1"])
    await eventually(() => forTask(task.id).some((r) => stateOf(r) === "TASK_STATE_COMPLETED"), "delivery once DNS is public again")
  }, 30_000)

  it("a redirect is not followed (to a private address or anywhere): the attempt fails and is retried", async () => {
    const task = (await rpc(alice, "SendMessage", { message: msg("redirected") }))["result"].task
    receiver.script.push({ status: 302, location: "http://10.0.0.1/steal", path: "/hook/redirect" })
    await rpc(alice, "CreateTaskPushNotificationConfig", { taskId: task.id, url: `${receiver.url}/redirect` })
    await eventually(() => forTask(task.id).some((r) => r.status === 200), "the retry after the redirect")
    const [first, second] = forTask(task.id)
    expect(first!.status).toBe(302)
    expect(second!.headers["x-a2a-delivery-id"]).toBe(first!.headers["x-a2a-delivery-id"])
  }, 30_000)

  it("the @a2a-js/sdk client's push config methods", async () => {
    const fetchImpl: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers)
      headers.set("authorization", `Bearer ${alice}`)
      return fetch(input, { ...init, headers })
    }
    const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory({ fetchImpl })] }))
    const client = await factory.createFromUrl(daemon.url)
    const message: Message = {
      messageId: `sdk-${Math.random().toString(16).slice(2)}`, contextId: "", taskId: "", role: Role.ROLE_USER,
      parts: [{ content: { $case: "text", value: "sdk push" }, metadata: undefined, filename: "", mediaType: "text/plain" }],
      metadata: undefined, extensions: [], referenceTaskIds: []
    }
    const task = (await client.sendMessage({ tenant: "", message, configuration: undefined, metadata: undefined })) as import("@a2a-js/sdk").Task
    const made = await client.createTaskPushNotificationConfig({ tenant: "", id: "sdk", taskId: task.id, url: receiver.url, token: "sdk-token", authentication: undefined })
    expect(made).toMatchObject({ id: "sdk", taskId: task.id, url: receiver.url, token: "sdk-token" })
    expect(await client.getTaskPushNotificationConfig({ tenant: "", taskId: task.id, id: "sdk" })).toMatchObject({ id: "sdk" })
    expect((await client.listTaskPushNotificationConfig({ tenant: "", taskId: task.id, pageSize: 0, pageToken: "" })).configs.map((c) => c.id)).toEqual(["sdk"])
    await eventually(() => forTask(task.id).some((r) => stateOf(r) === "TASK_STATE_COMPLETED"), "the sdk config's notification")
    await client.deleteTaskPushNotificationConfig({ tenant: "", taskId: task.id, id: "sdk" })
    await expect(client.getTaskPushNotificationConfig({ tenant: "", taskId: task.id, id: "sdk" })).rejects.toThrow()
  })

  it("a daemon restart loses no pending notification, and a state reached while it was down is sent after", async () => {
    const task = await startTask(alice, "[sim:slow=2s] pending across a restart")
    // The receiver fails every attempt before the restart.
    for (let i = 0; i < 50; i++) receiver.script.push({ status: 500, path: "/hook/restart" })
    await rpc(alice, "CreateTaskPushNotificationConfig", { taskId: task.id, id: "restart", url: `${receiver.url}/restart`, token: "rs" })
    await eventually(() => forTask(task.id).length >= 1, "a failed attempt before the restart")
    const failedId = forTask(task.id)[0]!.headers["x-a2a-delivery-id"]
    expect((await outboxOf(task.id)).filter((d) => d.doneAt === null).map((d) => d.deliveryId)).toContain(failedId)
    const hermesRunId = (await daemon.use(Effect.flatMap(Ledger, (l) => l.get(task.id))).then((r) => Option.getOrThrow(r))).hermesRunId
    await daemon.close()
    receiver.script.length = 0
    // The run ends at Hermes while the bridge is down (the simulator says when).
    await until(() => sim.findRun(hermesRunId), (run) => run !== undefined && isTerminalStatus(run.status), { what: "the run ended at Hermes", withinMs: 30_000 })
    daemon = await boot()
    await eventually(() => forTask(task.id).some((r) => r.status === 200 && stateOf(r) === "TASK_STATE_COMPLETED"), "the completed notification after the restart")
    await eventually(() => forTask(task.id).some((r) => r.status === 200 && r.headers["x-a2a-delivery-id"] === failedId), "the pending notification, same id")
    const completedIds = new Set(forTask(task.id).filter((r) => stateOf(r) === "TASK_STATE_COMPLETED").map((r) => r.headers["x-a2a-delivery-id"]))
    expect(completedIds.size).toBe(1)
  }, 60_000)
})

describe("push notifications switched off (a2a.webhook_allow empty, the default)", () => {
  it("the card says false and every config is PushNotificationNotSupported, nothing recorded", async () => {
    const off = await startDaemon(testConfig({ hermes: { url: sim.url, key: sim.profile("default").key } }, tempDir()))
    try {
      const key = await off.addClient("carol", ["agents", "a2a"])
      const card = (await (await fetch(`${off.url}/.well-known/agent-card.json`)).json()) as Json
      expect(card["capabilities"].pushNotifications ?? false).toBe(false)
      const task = (await rpcAt(off)(key, "SendMessage", { message: msg("no push"), configuration: { returnImmediately: true } }))["result"].task
      const created = await rpcAt(off)(key, "CreateTaskPushNotificationConfig", { taskId: task.id, url: receiver.url })
      expect(created["error"]).toMatchObject({ code: -32003 })
      expect(created["error"].message).toContain("a2a.webhook_allow is empty")
      expect(await off.use(Effect.flatMap(PushConfigs, (s) => s.list(task.id)))).toEqual([])
      // Inline in SendMessage: the same error, and no task is started.
      const inline = await rpcAt(off)(key, "SendMessage", { message: msg("no push inline"), configuration: { taskPushNotificationConfig: { url: receiver.url } } })
      expect(inline["error"]).toMatchObject({ code: -32003 })
      expect((await rpcAt(off)(key, "ListTasks", { pageSize: 100 }))["result"].tasks).toHaveLength(1)
    } finally {
      await off.close()
    }
  }, 30_000)
})
