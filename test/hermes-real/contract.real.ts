/**
 * The Hermes contract suite (`test/hermes/contract/scenarios.ts`) against a real Hermes build,
 * started by `support/gateway.ts` behind the fake model provider (`test/support/fakeLlm.ts`), and a
 * check that it reached nothing outside this machine. Run with `npm run test:hermes`, which
 * installs each pinned build first and runs this once per build (`scripts/hermes-test.sh`); the
 * build is named in every test's name, the fork as a fork.
 */
import { describe, expect, it } from "vitest"
import { FAKE_PROVIDER_KEY, UNICODE_ANSWER } from "../support/fakeLlm.ts"
import { contractSuite } from "../hermes/contract/scenarios.ts"
import { currentBuild } from "./support/build.ts"
import { type RealHermes, startRealHermes } from "./support/gateway.ts"

let hermes: RealHermes | null = null
const build = currentBuild()

contractSuite({
  name: build.label,
  generation: build.generation,
  runTimeoutMs: 30_000,
  restartable: true,
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
        hold: "[llm:slow=25000] take a long time",
        fail: "[llm:fail] this will fail",
        long: "[llm:deltas=1200] a long answer",
        subagent: "[llm:subagent] ask a helper"
      },
      unicodeText: UNICODE_ANSWER,
      providerSecret: FAKE_PROVIDER_KEY,
      restart: () => h.restart(),
      close: () => h.stop()
    }
  }
})

describe(`the real Hermes stayed on this machine: ${build.label}`, () => {
  it("nothing reached the proxy sink, and the model calls all went to the fake provider", () => {
    expect(hermes).not.toBeNull()
    expect(hermes?.sink.hits).toEqual([])
    expect(hermes?.llm.requests.length).toBeGreaterThan(0)
  })
})
