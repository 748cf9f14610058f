/**
 * The agents server's `tools/list`, full and compact, pinned byte for byte against test/golden/ and
 * held to a byte budget. After a deliberate catalog change: `npm run golden:update`, review the diff,
 * and move the budget below by hand if the listing grew on purpose.
 */
import * as fs from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CORE_TOOL_NAMES } from "../../src/edge/mcp/catalog/clientCatalog.ts"
import { META_TOOL_NAMES } from "../../src/edge/mcp/meta-tools/index.ts"
import { agentTools } from "../../src/edge/mcp/agent-tools/index.ts"
import { type CatalogFixture, startCatalogDaemon } from "./support/fixture.ts"
import { GOLDEN, type Listing, renderGolden, wireBytes, wireListing } from "./support/golden.ts"

/**
 * Wire bytes each listing may take. Measured when last moved (2026-12-03): 33,253 (full) and 5,957
 * (compact). The budgets leave about 10% of headroom, so a new run-view field (a few hundred bytes
 * in the full listing, where every run tool's output schema repeats the view; under 100 in the
 * compact one) or a new tool outside the core (full only) fits without moving them; a change that
 * needs more is a deliberate growth of what every client puts in its model's context, and moves
 * them here by hand with the new measurement.
 */
const BUDGET: Record<Listing, number> = { full: 36_500, compact: 6_600 }
/** The bar: the compact listing is at least 60% smaller than the full one. */
const MIN_REDUCTION = 0.6

describe("pinned tools/list", () => {
  let fx: CatalogFixture
  const wire: Partial<Record<Listing, string>> = {}
  beforeAll(async () => {
    fx = await startCatalogDaemon()
    wire.full = await wireListing(fx, "full")
    wire.compact = await wireListing(fx, "compact")
  })
  afterAll(async () => fx.daemon.close())

  for (const listing of ["full", "compact"] as const) {
    it(`${listing} listing matches ${GOLDEN[listing].file.split("/").slice(-2).join("/")} byte for byte`, () => {
      const golden = fs.readFileSync(GOLDEN[listing].file, "utf8")
      expect(renderGolden(wire[listing]!), "run `npm run golden:update` and review the diff").toBe(golden)
    })

    it(`${listing} listing stays within its budget of ${BUDGET[listing]} bytes`, () => {
      expect(wireBytes(wire[listing]!)).toBeLessThanOrEqual(BUDGET[listing])
    })
  }

  it("lists what each catalog promises", () => {
    const names = (json: string) => (JSON.parse(json) as { tools: ReadonlyArray<{ name: string }> }).tools.map((t) => t.name)
    expect(names(wire.full!)).toEqual(agentTools.map((t) => t.name))
    expect(names(wire.compact!)).toEqual([...CORE_TOOL_NAMES, ...META_TOOL_NAMES])
  })

  it(`makes the compact listing at least ${MIN_REDUCTION * 100}% smaller than the full one`, () => {
    const full = wireBytes(wire.full!)
    const compact = wireBytes(wire.compact!)
    const reduction = 1 - compact / full
    console.log(`tools/list: full ${full} bytes, compact ${compact} bytes, ${(reduction * 100).toFixed(1)}% smaller`)
    expect(reduction).toBeGreaterThanOrEqual(MIN_REDUCTION)
  })
})
