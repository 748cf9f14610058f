/**
 * `npx tsx scripts/bench-stream-floor.ts [STREAMS=2000]`: what holding one Hermes event stream open
 * costs a Node process before the bridge does anything with it: the floor under the bridge's RSS per
 * live run (issue 41's goal is ≤ 64 KiB per run; a parked run holds one such stream for as long as it
 * is parked, because Hermes's API has one event stream per run).
 *
 * A child process serves STREAMS server-sent-event responses that stay open (one comment line, then
 * silence). Each arm is a process of its own that opens them all and holds them, and reports its
 * RSS and heap growth per stream after a GC:
 * - `undici`: undici's `Agent.request` (the transport the bridge's Hermes client runs on), each body
 *   read by a `data` listener;
 * - `fiber`: undici as above, and one Effect fiber per stream parked on the body's end (what a
 *   fiber adds alone);
 * - `effect-body`: `@effect/platform-node`'s undici HTTP client, each response's undici body read by
 *   listeners in the fiber that made the request (no response stream);
 * - `effect`: the same client, each stream drained by one fiber
 *   (`Stream.runDrain` of `response.stream`), as a follow at its simplest.
 * The bridge's own figure (`npm run bench:scale`) is beside these, never subtracted from them.
 *
 * The last line is `BENCH_JSON {…}` for scripts/bench.ts.
 */
import { HttpClient, HttpClientRequest, type HttpClientResponse } from "@effect/platform"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Effect, Stream } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import { fileURLToPath } from "node:url"
import { Agent } from "undici"

/** The soft limit of open files (each held stream is a socket in this process and in the server's). */
const openFilesLimit = (): number => {
  try {
    const line = fs.readFileSync("/proc/self/limits", "utf8").split("\n").find((l) => l.startsWith("Max open files"))
    const soft = Number(line?.split(/\s{2,}/)[1])
    return Number.isFinite(soft) ? soft : Number.POSITIVE_INFINITY
  } catch {
    return Number.POSITIVE_INFINITY
  }
}
const ASKED = Number(process.argv[3] ?? process.argv[2] ?? 2000)
/** As many as asked, within the open-files limit (a machine at 1024 still measures, with fewer). */
const STREAMS = Math.max(50, Math.min(ASKED, openFilesLimit() - 200))
const SELF = fileURLToPath(import.meta.url)
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

/** The server: every GET is an event stream that sends one comment and then holds. */
const SERVER = `
const http = require("node:http")
const server = http.createServer((req, res) => {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store" })
  res.write(": open\\n\\n")
})
server.keepAliveTimeout = 0
server.maxConnections = 100000
server.listen(0, "127.0.0.1", () => console.log(server.address().port))
`

interface Figures { readonly rssKiB: number; readonly heapKiB: number; readonly opened: number }

const measure = async (open: (n: number) => Promise<number>): Promise<Figures> => {
  const gc = (globalThis as { gc?: () => void }).gc
  gc?.()
  await sleep(200)
  const before = process.memoryUsage()
  const opened = await open(STREAMS)
  await sleep(1000)
  gc?.()
  await sleep(200)
  const after = process.memoryUsage()
  return { rssKiB: (after.rss - before.rss) / 1024 / opened, heapKiB: (after.heapUsed - before.heapUsed) / 1024 / opened, opened }
}

/** Opens `n` streams with `open` (64 at a time), resolving once each has its first bytes. */
const inBatches = async (n: number, open: () => Promise<void>) => {
  let opened = 0
  for (let i = 0; i < n; i += 64) {
    await Promise.all(Array.from({ length: Math.min(64, n - i) }, async () => {
      await open()
      opened++
    }))
  }
  return opened
}

/** Holds `body` open: `opened` once its first bytes came, `ended` when it ends or breaks. */
const hold = (body: NodeJS.ReadableStream, opened: () => void, ended: () => void = () => undefined) => {
  let first = true
  body.on("data", () => {
    if (first) {
      first = false
      opened()
    }
  })
  body.on("end", ended)
  body.on("error", ended)
}

/** An arm over undici's `Agent.request`; `follow` holds each response's body. */
const viaUndici = (url: string, follow: (open: () => Promise<NodeJS.ReadableStream>, opened: () => void) => void) => {
  const agent = new Agent({ connections: null })
  const open = () => agent.request({ origin: url, path: "/events", method: "GET", bodyTimeout: 0 }).then((res) => res.body)
  return measure((n) => inBatches(n, () => new Promise<void>((resolve) => follow(open, resolve))))
}

/** An arm over `@effect/platform-node`'s undici client; `read` holds each response in its fiber. */
const viaEffectClient = (url: string, read: (res: HttpClientResponse.HttpClientResponse, opened: () => void) => Effect.Effect<void, unknown>) =>
  Effect.runPromise(Effect.gen(function* () {
    const client = yield* HttpClient.HttpClient
    const open = () => new Promise<void>((resolve) => {
      Effect.runFork(client.execute(HttpClientRequest.get(`${url}/events`)).pipe(Effect.flatMap((res) => read(res, resolve)), Effect.ignore))
    })
    return yield* Effect.promise(() => measure((n) => inBatches(n, open)))
  }).pipe(Effect.provide(NodeHttpClient.layerUndici)))

/** The client hands back its response wrapped (`original`: undici's, with the body). */
const undiciBodyOf = (res: HttpClientResponse.HttpClientResponse): NodeJS.ReadableStream => {
  type Undici = { readonly source: { readonly body: NodeJS.ReadableStream } }
  return ((res as unknown as { readonly original?: Undici }).original ?? (res as unknown as Undici)).source.body
}

const arms: Record<string, (url: string) => Promise<Figures>> = {
  undici: (url) => viaUndici(url, (open, opened) => void open().then((body) => hold(body, opened))),
  // One fiber per stream, parked in `Effect.async` on the body's end: what a fiber costs alone.
  fiber: (url) => viaUndici(url, (open, opened) => {
    Effect.runFork(Effect.async<void>((done) => void open().then((body) => hold(body, opened, () => done(Effect.void)))))
  }),
  // The client's undici body read by listeners: no response stream.
  "effect-body": (url) => viaEffectClient(url, (res, opened) => Effect.async<void>((done) => hold(undiciBodyOf(res), opened, () => done(Effect.void)))),
  effect: (url) => viaEffectClient(url, (res, opened) => res.stream.pipe(Stream.tap(() => Effect.sync(opened)), Stream.runDrain))
}

const ARM_NAMES: Record<string, string> = {
  undici: "undici alone",
  fiber: "undici and a fiber each",
  "effect-body": "Effect's undici client, its body read by listeners, a fiber each",
  effect: "Effect's undici client, its response stream drained by a fiber each"
}

const child = (args: ReadonlyArray<string>): { proc: ChildProcess; line: Promise<string> } => {
  const proc = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] })
  const line = new Promise<string>((resolve, reject) => {
    let out = ""
    proc.stdout!.on("data", (c: Buffer) => {
      out += c.toString("utf8")
      const nl = out.indexOf("\n")
      if (nl >= 0) resolve(out.slice(0, nl))
    })
    proc.once("exit", (code) => reject(new Error(`child exited (${code}) before answering: ${args.join(" ")}`)))
  })
  return { proc, line }
}

const main = async () => {
  const arm = process.argv[2]
  if (arm !== undefined && arm in arms) {
    const figures = await arms[arm]!(process.argv[4]!)
    process.stdout.write(`${JSON.stringify(figures)}\n`)
    process.exit(0)
  }
  const server = child(["-e", SERVER])
  const url = `http://127.0.0.1:${await server.line}`
  const results: Record<string, Figures> = {}
  try {
    for (const name of Object.keys(arms)) {
      const c = child([...process.execArgv, "--expose-gc", SELF, name, String(STREAMS), url])
      results[name] = JSON.parse(await c.line) as Figures
      c.proc.kill("SIGKILL")
      await sleep(500)
    }
  } finally {
    server.proc.kill("SIGKILL")
  }
  if (STREAMS < ASKED) console.log(`bench-stream-floor: ${ASKED} streams asked, ${STREAMS} held (the open-files limit, ulimit -n, is ${openFilesLimit()})`)
  console.log(`bench-stream-floor: ${STREAMS} event streams held open from one process (node ${process.version}, ${os.cpus().length} cores, load ${os.loadavg()[0]!.toFixed(1)})`)
  for (const [name, f] of Object.entries(results)) {
    console.log(`  ${name.padEnd(11)} ${f.rssKiB.toFixed(1)} KiB of RSS and ${f.heapKiB.toFixed(1)} KiB of heap per stream (${f.opened} open)`)
  }
  const rows = Object.entries(results).flatMap(([name, f]) => [
    { metric: `heap per held event stream (KiB), ${ARM_NAMES[name] ?? name}`, value: f.heapKiB, baseline: 64, baselineName: "the bridge's goal per live run, 64 KiB" },
    { metric: `RSS per held event stream (KiB), ${ARM_NAMES[name] ?? name}`, value: f.rssKiB, baseline: 64, baselineName: "the bridge's goal per live run, 64 KiB" }
  ])
  console.log(`BENCH_JSON ${JSON.stringify({ bench: "stream-floor", rows })}`)
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})
