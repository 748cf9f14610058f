/**
 * The daemon makes no tracing spans: it exports none, and a span per SQL statement, per
 * transaction and per Hermes request was pure cost on every streamed event and every tool call
 * (issue 41). A tracer installed around the daemon's layer sees nothing while a request that runs
 * SQL (`/healthz`), a tool call and a run's follow go through.
 */
import { describe, expect, it } from "@effect/vitest"
import { HttpServer } from "@effect/platform"
import { Effect, Layer, ManagedRuntime, Option, Tracer } from "effect"
import { daemonLayer } from "../../src/daemon/Daemon.ts"
import { Auth } from "../../src/services/auth/Auth.ts"
import { testConfig } from "../support/daemon.ts"
import { modernRequest } from "../support/mcpWire.ts"

/** A tracer that only counts the spans it is asked to make (by name). */
const countingTracer = () => {
  const made: Array<string> = []
  const tracer = Tracer.make({
    span: (name, parent, context, links, startTime, kind) => {
      made.push(name)
      return noopSpan(name, parent, context, links, startTime, kind)
    },
    context: (f) => f()
  })
  return { tracer, made }
}

const noopSpan = (name: string, parent: Option.Option<Tracer.AnySpan>, context: Tracer.Span["context"], links: ReadonlyArray<Tracer.SpanLink>, startTime: bigint, kind: Tracer.SpanKind): Tracer.Span => ({
  _tag: "Span", name, spanId: "s", traceId: "t", parent, context, status: { _tag: "Started", startTime }, attributes: new Map(), links, sampled: false, kind,
  end: () => undefined, attribute: () => undefined, event: () => undefined, addLinks: () => undefined
})

describe("tracing", () => {
  it("the daemon makes no span while it serves requests and follows a run", async () => {
    const { tracer, made } = countingTracer()
    const runtime = ManagedRuntime.make(daemonLayer(testConfig()).pipe(Layer.provide(Layer.setTracer(tracer))))
    try {
      const port = await runtime.runPromise(HttpServer.addressWith((a) => Effect.succeed(a._tag === "TcpAddress" ? a.port : 0)))
      const url = `http://127.0.0.1:${port}`
      const key = await runtime.runPromise(Effect.flatMap(Auth, (auth) => Effect.map(auth.addClient("tracing", ["agents"]), (r) => r.key)))
      made.length = 0
      expect((await fetch(`${url}/healthz`)).status).toBe(200)
      const call = await fetch(`${url}/mcp/agents/mcp`, modernRequest(key, 1, "tools/call", { name: "agent_run", arguments: { agent: "hermes", input: "[sim:deltas=3] hello", wait_s: 30 } }))
      const text = await call.text()
      expect(call.status).toBe(200)
      expect(text).toContain("completed")
      expect(made).toEqual([])
    } finally {
      await runtime.dispose()
    }
  }, 60_000)
})
