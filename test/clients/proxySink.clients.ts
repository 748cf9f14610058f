/**
 * The loopback proxy sink is what makes "nothing leaves the machine" a checked claim in the client
 * tests (each asserts `sink.hits` is empty), so it must record what a client behind it tries:
 * an HTTPS tunnel (CONNECT) and a plain proxied request alike, refusing both.
 */
import * as http from "node:http"
import { afterAll, beforeAll, expect, it } from "vitest"
import { type ProxySink, startProxySink } from "./support/proxySink.ts"

let sink: ProxySink
beforeAll(async () => {
  sink = await startProxySink()
})
afterAll(() => sink?.close())

const viaProxy = (method: string, path: string): Promise<number> =>
  new Promise((resolve, reject) => {
    const { port } = new URL(sink.url)
    const req = http.request({ host: "127.0.0.1", port, method, path, headers: { host: "example.invalid" } })
    req.on("connect", (res, socket) => {
      socket.destroy()
      resolve(res.statusCode ?? 0)
    })
    req.on("response", (res) => {
      res.resume()
      resolve(res.statusCode ?? 0)
    })
    req.on("error", reject)
    req.end()
  })

it("records and refuses an HTTPS tunnel and a plain proxied request", async () => {
  expect(await viaProxy("CONNECT", "api.example.invalid:443")).toBe(403)
  expect(await viaProxy("GET", "http://example.invalid/telemetry")).toBe(403)
  expect(sink.hits).toEqual(["CONNECT api.example.invalid:443", "GET http://example.invalid/telemetry"])
})
