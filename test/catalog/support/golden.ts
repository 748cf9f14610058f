/**
 * The pinned `tools/list` answers. The golden files hold the wire JSON of the agents server's
 * `tools/list` result, pretty-printed so a change reads as a diff; the budgets count the wire bytes
 * (compact JSON, UTF-8). `npm run golden:update` rewrites the files (scripts/update-golden.ts), after
 * which the diff is reviewed and, when the listing grew on purpose, the budgets are moved by hand.
 */
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { type CatalogFixture, type ClientName } from "./fixture.ts"
import { openWire } from "./wire.ts"

export const GOLDEN_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../golden")

export type Listing = "full" | "compact"

export const GOLDEN: Record<Listing, { readonly file: string; readonly client: ClientName }> = {
  /** A client without a `clients` entry: every tool, with output schemas. */
  full: { file: path.join(GOLDEN_DIR, "tools-list.full.json"), client: "plain" },
  compact: { file: path.join(GOLDEN_DIR, "tools-list.compact.json"), client: "compact" }
}

/** The `tools/list` result exactly as sent (see wire.ts). */
export const wireListing = async (fx: CatalogFixture, listing: Listing): Promise<string> => {
  const wire = await openWire(fx.daemon.url, fx.keys[GOLDEN[listing].client])
  try {
    return await wire.result("tools/list")
  } finally {
    await wire.close()
  }
}

export const renderGolden = (wireJson: string) => `${JSON.stringify(JSON.parse(wireJson), null, 2)}\n`

export const wireBytes = (wireJson: string) => Buffer.byteLength(wireJson, "utf8")
