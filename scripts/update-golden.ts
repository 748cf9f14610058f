/**
 * `npm run golden:update`: rewrites the pinned `tools/list` answers under test/golden/ from a daemon
 * started in-process (the same one test/catalog/golden.e2e.test.ts asks), then prints their sizes.
 * It also rewrites the client snippets that README.md and docs/CONNECT.md show, from the same code
 * that `client add` prints (test/catalog/clientSetup.test.ts checks that they match).
 * Review the diff; if a listing grew on purpose, move its budget in the test by hand.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { claudeCodeCommands, codexToml, DOC_EXAMPLE, hermesYaml } from "../src/cli/clientSetup.ts"
import { startCatalogDaemon } from "../test/catalog/support/fixture.ts"
import { GOLDEN, GOLDEN_DIR, type Listing, renderGolden, wireBytes, wireListing } from "../test/catalog/support/golden.ts"

/** Each generated snippet block, found by its fence and first line, replaced with what the code prints now. */
const SNIPPETS: ReadonlyArray<{ readonly fence: string; readonly starts: string; readonly body: string }> = [
  { fence: "sh", starts: "claude mcp add", body: `${claudeCodeCommands(DOC_EXAMPLE).join("\n")}\n` },
  { fence: "toml", starts: "[mcp_servers.agent-bridge]", body: codexToml(DOC_EXAMPLE) },
  { fence: "yaml", starts: "mcp_servers:", body: hermesYaml(DOC_EXAMPLE) }
]

const updateSnippets = (file: string) => {
  const before = fs.readFileSync(file, "utf8")
  let after = before
  for (const { fence, starts, body } of SNIPPETS) {
    const open = `\`\`\`${fence}\n${starts}`
    const at = after.indexOf(open)
    if (at < 0) throw new Error(`${file}: no \`\`\`${fence} block starting with ${starts}`)
    const end = after.indexOf("```", at + open.length)
    after = `${after.slice(0, at)}\`\`\`${fence}\n${body}${after.slice(end)}`
  }
  fs.writeFileSync(file, after)
  console.log(`${before === after ? "unchanged" : "updated  "} ${path.relative(process.cwd(), file)} (client snippets)`)
}

const main = async () => {
  for (const doc of ["README.md", "docs/CONNECT.md"]) updateSnippets(path.resolve(import.meta.dirname, "..", doc))
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
