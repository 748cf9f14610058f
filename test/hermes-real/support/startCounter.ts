/**
 * An HTTP proxy on loopback in front of a Hermes, for the capacity test: it passes every request on
 * unchanged (event streams included) and notes each answer to `POST /v1/runs`, so the test knows
 * every run Hermes admitted (202, its run id) and every start it refused (429, 503). Beside it a
 * poller reads Hermes's own count of live API runs: `maxLive` is the most Hermes reported at once.
 */
import * as http from "node:http"
import type { AddressInfo } from "node:net"

export interface StartCounter {
  readonly url: string
  /** Hermes run ids of the admitted starts, in order. */
  readonly admitted: ReadonlyArray<string>
  /** How many starts Hermes answered with each refusing status. */
  readonly refused: ReadonlyMap<number, number>
  /** The most live API runs Hermes reported at once. */
  readonly maxLive: () => number
  /** Live API runs in Hermes's last report. */
  readonly live: () => number
  /** How many reports were read, and what went wrong reading the others. */
  readonly polls: () => number
  /** Looks Hermes did not answer within 15 s (a busy Hermes): skipped samples. */
  readonly missed: () => number
  readonly problems: ReadonlyArray<string>
  close(): Promise<void>
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

export const startStartCounter = (target: string, key: string, pollEveryMs = 100): Promise<StartCounter> => {
  const to = new URL(target)
  const admitted: Array<string> = []
  const refused = new Map<number, number>()
  const problems: Array<string> = []
  let missed = 0
  let polls = 0
  let maxLive = 0
  let live = 0
  let closed = false

  const server = http.createServer((req, res) => {
    const upstream = http.request(
      { host: to.hostname, port: Number(to.port), method: req.method, path: req.url, headers: req.headers },
      (up) => {
        const isStart = req.method === "POST" && (req.url ?? "").split("?")[0] === "/v1/runs"
        if (!isStart) {
          res.writeHead(up.statusCode ?? 502, up.headers)
          up.pipe(res)
          return
        }
        const chunks: Array<Buffer> = []
        up.on("data", (c: Buffer) => chunks.push(c))
        up.on("end", () => {
          const body = Buffer.concat(chunks)
          const status = up.statusCode ?? 502
          if (status === 202) {
            try {
              const id = (JSON.parse(body.toString("utf8")) as { run_id?: unknown }).run_id
              if (typeof id === "string" && !admitted.includes(id)) admitted.push(id)
            } catch {
              // not JSON: the test fails on the run count
            }
          } else {
            refused.set(status, (refused.get(status) ?? 0) + 1)
          }
          res.writeHead(status, up.headers)
          res.end(body)
        })
      }
    )
    upstream.on("error", () => res.destroy())
    res.on("close", () => { if (!res.writableFinished) upstream.destroy() })
    req.pipe(upstream)
  })

  // Hermes's own count of live API runs (`active_api_runs` in `/health/detailed`, in every build
  // tested), read in one answer: no race between reading one run and another.
  const poll = async () => {
    while (!closed) {
      try {
        const r = await fetch(`${target}/health/detailed`, { headers: { authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(15_000) })
        const m = /"active_api_runs": ?(\d+)/.exec(await r.text())
        if (m === null) throw new Error("no active_api_runs in /health/detailed")
        live = Number(m[1])
        maxLive = Math.max(maxLive, live)
        polls += 1
      } catch (e) {
        // A look Hermes did not answer in time (busy with ten agent turns on a loaded machine) is
        // a missed sample, not a wrong one: the count read next covers it. A wrong answer is a problem.
        if (e instanceof Error && e.name === "TimeoutError") missed += 1
        else problems.push(String(e))
      }
      await sleep(pollEveryMs)
    }
  }

  return new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      const polling = poll()
      resolve({
        url: `http://127.0.0.1:${port}`,
        admitted,
        refused,
        maxLive: () => maxLive,
        live: () => live,
        polls: () => polls,
        missed: () => missed,
        problems,
        close: async () => {
          closed = true
          await polling
          server.closeAllConnections()
          await new Promise<void>((r) => server.close(() => r()))
        }
      })
    })
  })
}
