/**
 * `npm run golden:update`: rewrites the pinned `tools/list` answers under test/golden/ from a daemon
 * started in-process (the same one test/catalog/golden.e2e.test.ts asks), then prints their sizes.
 * Review the diff; if a listing grew on purpose, move its budget in the test by hand.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { startCatalogDaemon } from "../test/catalog/support/fixture.ts"
import { GOLDEN, GOLDEN_DIR, type Listing, renderGolden, wireBytes, wireListing } from "../test/catalog/support/golden.ts"

const main = async () => {
  const fx = await startCatalogDaemon()
  try {
    fs.mkdirSync(GOLDEN_DIR, { recursive: true })
    const sizes: Record<string, number> = {}
    for (const listing of ["full", "compact"] as const satisfies ReadonlyArray<Listing>) {
      const json = await wireListing(fx, listing)
      const { file } = GOLDEN[listing]
      const before = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : ""
      const after = renderGolden(json)
      fs.writeFileSync(file, after)
      sizes[listing] = wireBytes(json)
      console.log(`${before === after ? "unchanged" : "updated  "} ${path.relative(process.cwd(), file)} (${sizes[listing]} bytes on the wire)`)
    }
    const reduction = 1 - sizes["compact"]! / sizes["full"]!
    console.log(`compact is ${(reduction * 100).toFixed(1)}% smaller than full`)
  } finally {
    await fx.daemon.close()
  }
}

await main()
