/**
 * One edge runner and one SSE writer (docs/ARCHITECTURE.md, "A tool call" and "The A2A face"): a face runs a request's
 * program through `src/edge/runner.ts` (the caller, the request's AbortSignal, the bridge-error
 * mapping), and writes Server-Sent Events through `src/edge/sse.ts` (frames, keep-alives, the
 * revocation merge). A face that forks its own fiber, wires an abort listener to it, or builds an
 * event-stream response itself has written a fifth runner or a fourth SSE writer: this test names it.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"

const EDGE = path.resolve(import.meta.dirname, "../../src/edge")

/** What only the runner may do, and what only the SSE writer may. */
export const RULES: ReadonlyArray<{ readonly name: string; readonly owner: string; readonly pattern: RegExp }> = [
  { name: "a fiber forked for a request", owner: "runner.ts", pattern: /Runtime\.runFork\s*\(/ },
  { name: "a fiber interrupted by hand", owner: "runner.ts", pattern: /unsafeInterruptAsFork\s*\(/ },
  { name: "a fiber's end observed by hand", owner: "runner.ts", pattern: /\.addObserver\s*\(/ },
  { name: "a request run to its Exit", owner: "runner.ts", pattern: /Runtime\.runPromiseExit\s*\(/ },
  { name: "an event-stream response of the platform", owner: "sse.ts", pattern: /HttpServerResponse\.stream\s*\(/ },
  { name: "a web event-stream body", owner: "sse.ts", pattern: /toReadableStreamRuntime\s*\(/ },
  { name: "a keep-alive comment", owner: "sse.ts", pattern: /": keep-alive/ }
]

const files = (dir: string): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(path.join(dir, e.name)) : e.name.endsWith(".ts") ? [path.join(dir, e.name)] : [])

/** Comments removed (a comment may name what it replaced). */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1")

/** The rules `text` of `rel` (a path under src/edge) breaks. */
export const breaches = (rel: string, text: string): ReadonlyArray<string> =>
  RULES.filter((r) => rel !== r.owner && r.pattern.test(code(text))).map((r) => `${rel}: ${r.name} (only ${r.owner})`)

describe("one edge runner and one SSE writer", () => {
  it("the detector finds a hand-made runner and SSE writer, and passes the owners", () => {
    const runner = "const f = Runtime.runFork(runtime)(p); signal.addEventListener('abort', () => f.unsafeInterruptAsFork(id)); f.addObserver(done)"
    expect(breaches("a2a/routes.ts", runner)).toHaveLength(3)
    expect(breaches("runner.ts", runner)).toEqual([])
    expect(breaches("x.ts", "HttpServerResponse.stream(s, {})")).toHaveLength(1)
    expect(breaches("x.ts", "Stream.toReadableStreamRuntime(s, rt)")).toHaveLength(1)
    expect(breaches("sse.ts", "HttpServerResponse.stream(s, {})")).toEqual([])
    expect(breaches("x.ts", "/* Runtime.runFork( was here */ const a = 1")).toEqual([])
  })

  it("no face runs a request or writes SSE on its own", () => {
    const found = files(EDGE).flatMap((f) => breaches(path.relative(EDGE, f).split(path.sep).join("/"), fs.readFileSync(f, "utf8")))
    expect(found).toEqual([])
  })
})
