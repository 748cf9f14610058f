/**
 * `GET /inbox/events`: the stream a signed-in page listens on. It opens with the pending rows'
 * fingerprint (the same one the page carries in `data-version`), sends a new one when a row arrives
 * or is decided elsewhere, and ends with `signedout` once the session is gone. It waits on the
 * Inbox's change feed: a decision reaches it with no poll period to wait for, and the rows are read
 * once per change, not once per interval.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Ref } from "effect"
import { Inbox, type InboxShape } from "../../src/services/inbox/Inbox.ts"
import { InboxStore } from "../../src/services/inbox/InboxStore.ts"
import { skillMd } from "../teach/skillFixtures.ts"
import { bounded as settles } from "../reliability/support/bounded.ts"
import { makeBrowser, makeHarness, openApproval, pushSkill } from "./support.ts"

const versionOf = (page: string) => /data-version="([^"]+)"/.exec(page)?.[1] ?? "none"

/** Reads frames off an SSE body until one matches. */
const frameReader = (body: ReadableStream<Uint8Array>) => {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let buffer = ""
  const frames: Array<string> = []
  const next = async (): Promise<string | null> => {
    while (true) {
      const end = buffer.indexOf("\n\n")
      if (end >= 0) {
        const frame = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        frames.push(frame)
        return frame
      }
      const { value, done } = await reader.read()
      if (done) return null
      buffer += decoder.decode(value, { stream: true })
    }
  }
  const scan = async (match: (frame: string) => boolean): Promise<string | null> => {
    for (let f = await next(); f !== null; f = await next()) if (match(f)) return f
    return null
  }
  /** The first frame that matches (null when the stream ends first); fails after `ms` naming the frames seen. */
  const until = (match: (frame: string) => boolean, ms = 15_000): Promise<string | null> =>
    settles("a matching frame", ms, scan(match)).catch((e: Error) => {
      throw new Error(`${e.message}; the last frames: ${JSON.stringify(frames.slice(-5))}`)
    })
  return { until, frames, cancel: () => reader.cancel() }
}

/** `effect`, failed with `what` when it has not ended within 15 s (a wait that hung would only meet the test's own bound). */
const bounded = <A, E, R>(what: string, effect: Effect.Effect<A, E, R>) =>
  Effect.timeoutFail(effect, { duration: "15 seconds", onTimeout: () => new Error(`${what} did not end within 15 s`) })

const inboxData = (frame: string | null) => /^event: inbox\ndata: (.+)$/m.exec(frame ?? "")?.[1] ?? null

describe("the event stream", () => {
  it.live("follows the pending rows and ends when the session does", () => {
    const h = makeHarness({ pollInterval: "10 millis" })
    return Effect.gen(function* () {
      const b = yield* makeBrowser
      const csrf = yield* b.signInAsAdmin
      const before = versionOf((yield* b.call("GET", "/inbox")).body)
      const r = yield* b.call("GET", "/inbox/events")
      expect(r.status).toBe(200)
      expect(r.headers.get("content-type")).toBe("text/event-stream; charset=utf-8")
      expect(r.headers.get("cache-control")).toBe("no-store")
      expect(r.headers.get("content-security-policy")).toContain("default-src 'none'")
      const stream = frameReader(r.web.body!)
      expect(yield* Effect.promise(() => stream.until((f) => f.startsWith("retry:")))).toBe("retry: 2000")
      expect(inboxData(yield* Effect.promise(() => stream.until((f) => f.startsWith("event: inbox"))))).toBe(before)

      // A row arrives: a new fingerprint, the one the page now renders.
      const row = yield* pushSkill("alice", "live-skill", skillMd("live-skill"))
      const arrived = inboxData(yield* Effect.promise(() => stream.until((f) => f.startsWith("event: inbox"))))
      expect(arrived).not.toBe(before)
      expect(arrived).toBe(versionOf((yield* b.call("GET", "/inbox")).body))

      // Decided elsewhere (the CLI calls the same service): the fingerprint changes back.
      yield* Effect.flatMap(Inbox, (inbox) => inbox.decide(row.approval_id, { approve: false, by: "admin" }))
      const decided = inboxData(yield* Effect.promise(() => stream.until((f) => f.startsWith("event: inbox"))))
      expect(decided).toBe(before)

      // Unchanged rows send nothing new: every inbox frame so far differs from the one before it.
      const sent = stream.frames.map(inboxData).filter((v): v is string => v !== null)
      expect(sent).toEqual([before, arrived, before])

      yield* b.call("POST", "/inbox/signout", { form: { csrf } })
      expect(yield* Effect.promise(() => stream.until((f) => f.startsWith("event: signedout")))).not.toBeNull()
      // The stream ends after `signedout`.
      expect(yield* Effect.promise(() => stream.until(() => true))).toBeNull()
    }).pipe(Effect.provide(h.layer))
  })

  it.live("sends keep-alive comments on an idle stream", () => {
    const h = makeHarness({ pollInterval: "10 millis", heartbeat: "20 millis" })
    return Effect.gen(function* () {
      const b = yield* makeBrowser
      yield* b.signInAsAdmin
      const r = yield* b.call("GET", "/inbox/events")
      const stream = frameReader(r.web.body!)
      expect(yield* Effect.promise(() => stream.until((f) => f.startsWith(": keep-alive")))).toBe(": keep-alive")
      yield* Effect.promise(() => stream.cancel())
    }).pipe(Effect.provide(h.layer))
  })

  it.live("pushes the update a decision makes at once, with no poll period to wait for", () => {
    // The session check runs once an hour here: only the change feed can bring these frames.
    const h = makeHarness({ pollInterval: "1 hour" })
    return Effect.gen(function* () {
      const b = yield* makeBrowser
      const csrf = yield* b.signInAsAdmin
      const r = yield* b.call("GET", "/inbox/events")
      const stream = frameReader(r.web.body!)
      const next = Effect.promise(() => stream.until((f) => f.startsWith("event: inbox"))).pipe(Effect.map(inboxData))
      const empty = yield* next
      const row = yield* openApproval()
      const waiting = yield* next
      expect(waiting).not.toBe(empty)
      const decided = yield* b.call("POST", `/inbox/rows/${row.id}`, { form: { csrf, decision: "deny" } })
      expect(decided.status).toBe(303)
      expect(yield* next).toBe(empty)
      yield* Effect.promise(() => stream.cancel())
    }).pipe(Effect.provide(h.layer))
  })

  it.live("reads the rows once per change, not per interval, and sends nothing when the pending rows stayed the same", () => {
    const h = makeHarness({ pollInterval: "5 millis", heartbeat: "20 millis" })
    return Effect.gen(function* () {
      const inbox = yield* Inbox
      const reads = yield* Ref.make(0)
      const counted: InboxShape = { ...inbox, list: (filter) => Effect.zipRight(Ref.update(reads, (n) => n + 1), inbox.list(filter)) }
      const old = yield* bounded("the first push", pushSkill("alice", "old", skillMd("old")))
      yield* bounded("its denial", inbox.decide(old.approval_id, { approve: false, by: "admin" }))

      const b = yield* makeBrowser
      yield* b.signInAsAdmin
      const r = yield* b.call("GET", "/inbox/events").pipe(Effect.provideService(Inbox, counted))
      const stream = frameReader(r.web.body!)
      const before = inboxData(yield* Effect.promise(() => stream.until((f) => f.startsWith("event: inbox"))))
      // Three keep-alives: dozens of session checks went by, and the rows were read only once.
      for (let i = 0; i < 3; i++) yield* Effect.promise(() => stream.until((f) => f.startsWith(": keep-alive")))
      expect(yield* Ref.get(reads)).toBe(1)

      // Retention deletes a decided row: the feed moves, the pending rows do not, so no frame.
      expect(yield* bounded("the history delete", Effect.flatMap(InboxStore, (store) => store.deleteHistory("9999-01-01T00:00:00.000Z")))).toBe(1)
      yield* bounded("the second push", pushSkill("alice", "fresh", skillMd("fresh")))
      const arrived = inboxData(yield* Effect.promise(() => stream.until((f) => f.startsWith("event: inbox"))))
      expect(arrived).not.toBe(before)
      expect(stream.frames.map(inboxData).filter((v): v is string => v !== null)).toEqual([before, arrived])
      expect(yield* Ref.get(reads)).toBeGreaterThanOrEqual(2)
      yield* Effect.promise(() => stream.cancel())
    }).pipe(Effect.provide(h.layer))
  })
})
