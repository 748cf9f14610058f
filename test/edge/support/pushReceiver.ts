/**
 * A loopback webhook (node:http on 127.0.0.1) for the push tests: records every POST (headers,
 * body), answers from a script (a status per request, then 200), and checks each signature the
 * way docs/REFERENCE.md tells a receiver to.
 */
import { createHmac, timingSafeEqual } from "node:crypto"
import * as fs from "node:fs"
import http from "node:http"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { until } from "../../support/poll.ts"

export interface Received {
  readonly headers: http.IncomingHttpHeaders
  readonly body: string
  readonly json: Record<string, any>
  readonly status: number
}

export interface Receiver {
  readonly url: string
  readonly port: number
  readonly received: Array<Received>
  /**
   * Statuses for the next requests, in order (then 200); a `location` makes it a redirect; a `path`
   * keeps the answer for requests to that path (another test's late notification cannot take it).
   */
  readonly script: Array<{ readonly status: number; readonly location?: string; readonly path?: string }>
  readonly close: () => Promise<void>
}

/** The receiver's check, as documented: HMAC-SHA256 over "<timestamp>.<body>" keyed by the token. */
export const verifySignature = (token: string, headers: http.IncomingHttpHeaders, body: string): boolean => {
  const timestamp = String(headers["x-a2a-timestamp"] ?? "")
  const given = String(headers["x-a2a-signature"] ?? "")
  const expected = `v1=${createHmac("sha256", token).update(`${timestamp}.${body}`).digest("hex")}`
  return given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected))
}

/** A receiver's check of `webhook-signature` (Standard Webhooks). */
export type WebhookVerifier = (secret: string, headers: http.IncomingHttpHeaders, rawBody: string | Buffer, nowSeconds?: number) => boolean

/**
 * The receiver snippet docs/REFERENCE.md gives ("Push notifications", **Verify**), taken from the
 * document and run as it is written (its one import, node:crypto, handed in): the tests check the
 * documented code, not a copy of it.
 */
export const documentedVerifier = (): WebhookVerifier => {
  const reference = fs.readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "docs", "REFERENCE.md"), "utf8")
  const block = /```js\n(\s*import \{ createHmac, timingSafeEqual \} from "node:crypto"\n[\s\S]*?export const verifyWebhook[\s\S]*?)```/.exec(reference)
  if (block === null) throw new Error("docs/REFERENCE.md has no verifyWebhook snippet")
  const body = block[1]!.replace(/^\s*import .*$/m, "").replace("export const verifyWebhook", "const verifyWebhook")
  return new Function("createHmac", "timingSafeEqual", "Buffer", `${body}\nreturn verifyWebhook`)(createHmac, timingSafeEqual, Buffer) as WebhookVerifier
}

export const startReceiver = async (): Promise<Receiver> => {
  const received: Array<Received> = []
  const script: Array<{ status: number; location?: string; path?: string }> = []
  const server = http.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8")
      const at = script.findIndex((s) => s.path === undefined || s.path === req.url)
      const next = at === -1 ? { status: 200 } : script.splice(at, 1)[0]!
      let json: Record<string, any> = {}
      try {
        json = JSON.parse(body) as Record<string, any>
      } catch {
        json = {}
      }
      received.push({ headers: req.headers, body, json, status: next.status })
      res.writeHead(next.status, next.location === undefined ? {} : { location: next.location })
      res.end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as { port: number }).port
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    received,
    script,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

/** Waits (bounded: 30 s in 50 ms steps) until `done` holds (test/support/poll.ts's loop). */
export const eventually = async (done: () => boolean, what: string): Promise<void> => {
  await until(done, (d) => d, { what, withinMs: 30_000 })
}
