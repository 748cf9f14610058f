/**
 * Plain HTTP against a simulated Hermes, for the simulator's own contract tests: they check bytes
 * and statuses on the wire, independently of the bridge's HermesClient.
 */
import * as http from "node:http"
import { sleep, untilDefined } from "../../support/poll.ts"

export interface RawAnswer {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  readonly text: string
  readonly json: any
}

export interface SseFrame {
  readonly id: string | null
  readonly data: string
  readonly json: any
}

export interface SseAnswer {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  /** Everything received, exactly as sent. */
  readonly text: string
  readonly frames: ReadonlyArray<SseFrame>
  readonly comments: ReadonlyArray<string>
  /** How the response ended: EOF after the body, cut (socket error), or stopped by the reader. */
  readonly ending: "eof" | "cut" | "stopped"
}

/** Splits SSE text (LF line ends, as the simulator writes) into frames and comments. */
export const parseSse = (text: string) => {
  const frames: Array<SseFrame> = []
  const comments: Array<string> = []
  for (const block of text.split("\n\n")) {
    if (block === "") continue
    let id: string | null = null
    const data: Array<string> = []
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) comments.push(line.slice(1).trim())
      else if (line.startsWith("id: ")) id = line.slice(4)
      else if (line.startsWith("data: ")) data.push(line.slice(6))
    }
    if (data.length > 0) frames.push({ id, data: data.join("\n"), json: JSON.parse(data.join("\n")) })
  }
  return { frames, comments }
}

const request = (
  url: string,
  method: string,
  headers: Record<string, string>,
  body: string | undefined
): Promise<RawAnswer> =>
  new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (c: Buffer) => chunks.push(c))
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8")
        let json: unknown = undefined
        try {
          json = text === "" ? undefined : JSON.parse(text)
        } catch {
          json = undefined
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json })
      })
      res.on("error", reject)
    })
    req.on("error", reject)
    if (body !== undefined) req.write(body)
    req.end()
  })

export interface SseOptions {
  readonly headers?: Record<string, string>
  /** Stop reading once this returns true for the text so far. */
  readonly until?: (text: string) => boolean
  /** Give up after this long (the answer then ends "stopped"). */
  readonly maxMs?: number
}

export const rawClient = (base: string, key?: string) => {
  const auth = (h: Record<string, string> = {}) => (key === undefined ? h : { authorization: `Bearer ${key}`, ...h })
  return {
    get: (path: string, headers?: Record<string, string>) => request(`${base}${path}`, "GET", auth(headers), undefined),
    post: (path: string, body: unknown, headers?: Record<string, string>) =>
      request(`${base}${path}`, "POST", auth({ "content-type": "application/json", ...headers }), typeof body === "string" ? body : JSON.stringify(body)),
    sse: (path: string, o: SseOptions = {}): Promise<SseAnswer> =>
      new Promise((resolve, reject) => {
        let text = ""
        let settled = false
        let cutOff: (() => void) | undefined
        const req = http.request(`${base}${path}`, { method: "GET", headers: auth({ accept: "text/event-stream", ...o.headers }) }, (res) => {
          cutOff = () => finish("cut")
          const finish = (ending: SseAnswer["ending"]) => {
            if (settled) return
            settled = true
            clearTimeout(timer)
            resolve({ status: res.statusCode ?? 0, headers: res.headers, text, ...parseSse(text), ending })
          }
          res.setEncoding("utf8")
          res.on("data", (c: string) => {
            text += c
            if (o.until?.(text) === true) {
              finish("stopped")
              req.destroy()
            }
          })
          res.on("end", () => finish("eof"))
          res.on("error", () => finish("cut"))
          res.on("aborted", () => finish("cut"))
          res.on("close", () => finish(res.complete ? "eof" : "cut"))
          const timer = setTimeout(() => {
            finish("stopped")
            req.destroy()
          }, o.maxMs ?? 10_000)
        })
        // A reset after the answer began is a cut connection, not a failed request.
        req.on("error", (e) => (settled ? undefined : cutOff !== undefined ? cutOff() : reject(e)))
        req.end()
      })
  }
}

export type RawClient = ReturnType<typeof rawClient>

export { sleep }

/** Polls `f` until it returns a value (not undefined), or fails after `ms` (test/support/poll.ts's loop). */
export const eventually = <A>(f: () => Promise<A | undefined> | A | undefined, ms = 10_000, every = 10): Promise<A> =>
  untilDefined(f, { withinMs: ms, everyMs: every })
