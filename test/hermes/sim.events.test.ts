/**
 * The simulator against Hermes's protocol (docs/SIMULATOR.md), "Events", over real HTTP: unnamed ASCII-escaped `data:`
 * frames, `: keepalive`, `: stream closed` then EOF, the 1 s registration wait, older builds'
 * single consumer (404 for a second subscriber and after a reconnect, no ids), newer builds' ids,
 * Last-Event-ID replay, several subscribers and the cut of a slow subscriber; the stream never
 * stops the run; `[sim:drop]` cuts connections mid-stream.
 */
import * as http from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startSimulatorAsync, type SimulatorAsync } from "../../src/hermes/sim/layer.ts"
import { eventually, rawClient, type RawClient } from "./support/raw.ts"

const closed = (t: string) => t.includes(": stream closed")

for (const generation of ["old", "new"] as const) {
  describe(`simulator (${generation} build): events`, () => {
    let sim: SimulatorAsync
    let c: RawClient
    beforeAll(async () => {
      sim = await startSimulatorAsync({ generation, keepaliveMs: 40 })
      c = rawClient(sim.url, sim.profile("default").key)
    })
    afterAll(() => sim.close())
    const start = async (input: string) => (await c.post("/v1/runs", { input })).json.run_id as string

    it("sends unnamed data frames of ASCII JSON with event, run_id and timestamp, then ': stream closed' and EOF", async () => {
      const id = await start("hello [sim:unicode]")
      const r = await c.sse(`/v1/runs/${id}/events`)
      expect(r.status).toBe(200)
      expect(r.headers["content-type"]).toContain("text/event-stream")
      expect(r.ending).toBe("eof")
      expect(r.text).toMatch(/^[\x0a\x20-\x7e]*$/)
      expect(r.text).not.toMatch(/^event:/m)
      expect(r.text.endsWith(": stream closed\n\n")).toBe(true)
      for (const f of r.frames) expect(f.json).toMatchObject({ event: expect.any(String), run_id: id, timestamp: expect.any(Number) })
      const names = r.frames.map((f) => f.json.event)
      expect(names[0]).toBe("tool.started")
      expect(names.at(-1)).toBe("run.completed")
      const text = r.frames.filter((f) => f.json.event === "message.delta").map((f) => f.json.delta).join("")
      expect(r.frames.at(-1)?.json.output).toBe(text)
      expect(text).toContain("naïve café — 東京 🚀")
      expect(r.frames[0]?.json).toMatchObject({ tool: "terminal", preview: "ls -la" })
      expect(r.frames[1]?.json).toMatchObject({ tool: "terminal", duration: expect.any(Number), error: false })
      if (generation === "old") expect(r.frames.every((f) => f.id === null)).toBe(true)
      else expect(r.frames.map((f) => f.id)).toEqual(r.frames.map((_, i) => String(i)))
    })

    it("sends ': keepalive' while a run is quiet", async () => {
      const id = await start("[sim:slow=400,deltas=1]")
      const r = await c.sse(`/v1/runs/${id}/events`)
      expect(r.comments).toContain("keepalive")
      await c.post(`/v1/runs/${id}/stop`, {})
    })

    it("waits up to 1 s for a just-started run to register, else 404", async () => {
      const slow = await startSimulatorAsync({ generation, registrationDelayMs: 300 })
      try {
        const sc = rawClient(slow.url, slow.profile("default").key)
        const id = (await sc.post("/v1/runs", { input: "x" })).json.run_id
        expect((await sc.sse(`/v1/runs/${id}/events`)).status).toBe(200)
        expect((await sc.sse("/v1/runs/run_0123456789abcdef0123456789abcdef/events")).status).toBe(404)
      } finally {
        await slow.close()
      }
    })

    it("emits N events for [sim:events=N]", async () => {
      const r = await c.sse(`/v1/runs/${await start("[sim:events=500]")}/events`)
      expect(r.frames).toHaveLength(500)
    })

    it("closing the stream never stops the run", async () => {
      const id = await start("[sim:slow=300]")
      const r = await c.sse(`/v1/runs/${id}/events`, { until: (t) => t.includes("data:") })
      expect(r.ending).toBe("stopped")
      const s = await eventually(async () => ((await c.get(`/v1/runs/${id}`)).json.status === "completed" ? true : undefined))
      expect(s).toBe(true)
    })

    it("[sim:drop] cuts the subscriber's connection mid-stream", async () => {
      const id = await start("[sim:drop=3,slow=200]")
      const r = await c.sse(`/v1/runs/${id}/events`)
      expect(r.ending).toBe("cut")
      // Frames still in flight when the connection is cut are lost, as on a real dropped link.
      expect(r.frames.length).toBeLessThanOrEqual(3)
      expect(closed(r.text)).toBe(false)
    })

    if (generation === "old") {
      it("a second concurrent subscriber shares the first one's queue; a reconnect after one left is 404", async () => {
        const id = await start("[sim:slow=800,deltas=20]")
        const first = c.sse(`/v1/runs/${id}/events`, { maxMs: 4000 })
        await eventually(() => (sim.handle.state.runs.get(id)?.subscribers.size === 1 ? true : undefined))
        const second = c.sse(`/v1/runs/${id}/events`, { maxMs: 4000 })
        await eventually(() => (sim.handle.state.runs.get(id)?.subscribers.size === 2 ? true : undefined))
        const [a, b] = await Promise.all([first, second])
        expect([a.status, b.status]).toEqual([200, 200])
        // Every frame went to exactly one of them, and one of them got the end.
        expect(a.frames.length + b.frames.length).toBe(sim.handle.state.runs.get(id)?.nextSeq)
        expect(new Set([...a.frames, ...b.frames].map((f) => f.data)).size).toBe(a.frames.length + b.frames.length)
        expect(a.frames.length).toBeGreaterThan(0)
        expect(b.frames.length).toBeGreaterThan(0)
        const ended = [a, b].filter((r) => r.text.endsWith(": stream closed\n\n"))
        expect(ended).toHaveLength(1)
        expect(ended[0]?.frames.at(-1)?.json.event).toBe("run.completed")
        // The other one was left waiting (the reader gave up on it).
        expect([a, b].find((r) => r !== ended[0])?.ending).toBe("stopped")
        await eventually(() => (sim.handle.state.runs.get(id)?.bufferDropped === true ? true : undefined))
        expect((await c.sse(`/v1/runs/${id}/events`)).status).toBe(404)
      })

      it("keeps the events of a run nobody has read yet for its first consumer", async () => {
        const id = await start("early bird")
        await eventually(async () => ((await c.get(`/v1/runs/${id}`)).json.status === "completed" ? true : undefined))
        const r = await c.sse(`/v1/runs/${id}/events`)
        expect(r.frames.at(-1)?.json.event).toBe("run.completed")
        expect(r.frames[0]?.json.event).toBe("tool.started")
      })
    } else {
      it("replays the events after Last-Event-ID", async () => {
        const id = await start("[sim:deltas=10]")
        const all = await c.sse(`/v1/runs/${id}/events`)
        const after = await c.sse(`/v1/runs/${id}/events`, { headers: { "last-event-id": "4" } })
        expect(after.frames.map((f) => f.id)).toEqual(all.frames.slice(5).map((f) => f.id))
        expect(after.frames.map((f) => f.data)).toEqual(all.frames.slice(5).map((f) => f.data))
      })

      it("a reconnect from the terminal frame (or past it) of a settled run gets ': stream closed' and EOF", async () => {
        const id = await start("[sim:deltas=3]")
        const all = await c.sse(`/v1/runs/${id}/events`)
        const last = all.frames.at(-1)?.id ?? "missing"
        for (const from of [last, String(Number(last) + 50)]) {
          const r = await c.sse(`/v1/runs/${id}/events`, { headers: { "last-event-id": from }, maxMs: 2000 })
          expect([r.ending, r.frames.length, r.text.endsWith(": stream closed\n\n")]).toEqual(["eof", 0, true])
        }
      })

      it("a Last-Event-ID past the end of a live run still ends the stream when the run settles", async () => {
        const id = await start("[sim:slow=300]")
        const r = await c.sse(`/v1/runs/${id}/events`, { headers: { "last-event-id": "999" }, maxMs: 3000 })
        expect([r.ending, r.text.endsWith(": stream closed\n\n")]).toEqual(["eof", true])
      })

      it("gives every subscriber every event", async () => {
        const id = await start("[sim:slow=300]")
        const [a, b] = await Promise.all([c.sse(`/v1/runs/${id}/events`), c.sse(`/v1/runs/${id}/events`)])
        expect(a.frames.length).toBeGreaterThan(5)
        expect(a.frames.map((f) => f.data)).toEqual(b.frames.map((f) => f.data))
      })

      it("disconnects a subscriber that falls too far behind", async () => {
        const tight = await startSimulatorAsync({ slowSubscriberLimit: 8 })
        try {
          const key = tight.profile("default").key
          const id = (await rawClient(tight.url, key).post("/v1/runs", { input: "[sim:output=8m,deltas=4000,slow=3000]" })).json.run_id
          // A reader that stops reading: the server's writes back up and its live backlog grows
          // until the simulator cuts it. The reader notices once it reads again.
          let response: http.IncomingMessage | undefined
          const ended = new Promise<boolean>((resolve) => {
            const req = http.get(`${tight.url}/v1/runs/${id}/events`, { headers: { authorization: `Bearer ${key}` } }, (res) => {
              response = res
              res.pause()
              res.on("error", () => resolve(true))
              res.on("close", () => resolve(!res.complete))
            })
            req.on("error", () => resolve(true))
          })
          await eventually(() => (response !== undefined && tight.handle.state.runs.get(id)?.consumed === true ? true : undefined))
          await eventually(() => (tight.handle.state.runs.get(id)?.subscribers.size === 0 ? true : undefined))
          response?.resume()
          const cut = await ended
          expect(cut).toBe(true)
          expect(tight.handle.state.runs.get(id)?.subscribers.size).toBe(0)
        } finally {
          await tight.close()
        }
      })
    }
  })
}
