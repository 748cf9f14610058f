/**
 * A daemon that shuts down while an A2A stream is open: the stream gets `bridge.unavailable` as an
 * error frame and closes, and the shutdown is not held up by it.
 */
import { expect, it } from "vitest"
import { startDaemon, tempDir, testConfig } from "../support/daemon.ts"

it("a shutdown ends an open stream with bridge.unavailable, promptly", async () => {
  const daemon = await startDaemon(testConfig({ hermes: { url: "sim" } }, tempDir()))
  const key = await daemon.addClient("s", ["agents", "a2a"])
  const res = await fetch(`${daemon.url}/a2a`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendStreamingMessage", params: { message: { messageId: "x", role: "ROLE_USER", parts: [{ text: "[sim:slow=60s] x" }] } } })
  })
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader()
  expect((await reader.read()).value).toMatch(/^data: .*"task"/)
  const t0 = Date.now()
  await daemon.close()
  let rest = ""
  for (let i = 0; i < 20; i++) {
    const r = await reader.read().catch(() => ({ done: true as const, value: undefined }))
    if (r.done) break
    rest += r.value
  }
  expect(Date.now() - t0).toBeLessThan(5_000)
  const last = JSON.parse(rest.trim().split("\n\n").at(-1)!.slice("data: ".length)) as { id: number; error: { data: Array<{ metadata: Record<string, string> }> } }
  expect(last.id).toBe(1)
  expect(last.error.data[0]!.metadata["bridge_code"]).toBe("bridge.unavailable")
}, 60_000)
