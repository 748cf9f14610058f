/**
 * Every service tag has its test double beside it: a `<Tag>Test` export (the tag's name without a
 * trailing `Service`) from a module in the tag's own folder, documented where it is defined (what it
 * fakes, what it records), or an entry of `SUBSTITUTES` naming the production export that serves as
 * the double and why. Doubles live in `src/`, so nothing in `src/` may import vitest or `test/`.
 * The check reads the sources as text.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"

const SRC = path.resolve(import.meta.dirname, "../../src")

/** Tags whose double is one of their own layers, and why a `<Tag>Test` would only repeat it. */
export const SUBSTITUTES: Readonly<Record<string, { readonly double: string; readonly reason: string }>> = {
  Simulator: { double: "SimulatorLive", reason: "the simulator is itself the Hermes double; tests start it on a free loopback port" },
  HermesProfiles: { double: "HermesProfilesWith", reason: "a plain list of profiles: the test's own list is the double" },
  SimulatorInfo: { double: "SimulatorInfoNone", reason: "a plain value: no simulator" },
  InboxWeb: { double: "InboxWebLive", reason: "the inbox page's settings; tests build the real one with short sessions, polls and heartbeats" },
  McpSessions: { double: "McpSessionsLive", reason: "the MCP edge is what its tests drive, over a catalog of the test's tools" },
  InboxChanges: { double: "InboxChangesLive", reason: "already in memory (a SubscriptionRef)" },
  ChangeFeedBump: { double: "ChangeFeedTest", reason: "the change feed double's own handle (\"another process committed\"): ChangeFeedTest provides both" },
  OperatorStops: { double: "OperatorStopsRecording", reason: "records requests and does nothing else; over LedgerTest it needs no daemon" },
  Redactor: { double: "RedactorWith", reason: "pure and in memory; RedactorWith(secrets) registers the test's secrets" },
  Lifecycle: { double: "LifecycleAt", reason: "a Ref in memory: LifecycleAt(phase) starts in the phase the test needs" },
  RunFollowers: { double: "RunFollowersLocal", reason: "the single daemon's FiberMap, in memory; the run service falls back to it when no RunFollowers is given" },
  Clients: { double: "ClientsLive", reason: "a store: its tests run the real layer over the test database, on SQLite and PostgreSQL" },
  StopRequests: { double: "StopRequestsLive", reason: "a store: its tests run the real layer over the test database, on SQLite and PostgreSQL" },
  OperatorSessions: { double: "OperatorSessionsLive", reason: "a store: the inbox tests run the real layer over the test database, on SQLite and PostgreSQL" },
  SignInFailures: { double: "SignInFailuresLive", reason: "a store: the inbox tests run the real layer over the test database, on SQLite and PostgreSQL" },
  McpSessionStore: { double: "McpSessionStoreLive", reason: "a store: its tests run the real layer over the test database, on SQLite and PostgreSQL" },
  OAuthStore: { double: "OAuthStoreLive", reason: "a store: the OAuth tests run it inside daemons over the test database, on SQLite and PostgreSQL" },
  OAuth: { double: "OAuthFor", reason: "the authorization server itself over the test's database: tests start a daemon with oauth.issuer on loopback" },
  ClientQuotas: { double: "ClientQuotasFor", reason: "numbers and an in-memory count: ClientQuotasFor(limits) is the real service over the test's numbers" }
}

export type Sources = ReadonlyMap<string, string>

const TAG = /export class (\w+) extends Context\.Tag\(/g

/** The double a tag's name asks for. */
export const doubleName = (tag: string) => `${tag.replace(/(.)Service$/, "$1")}Test`

/** `export const NAME` (or function) with a doc comment right above it, or a module doc naming it. */
const documentedExport = (text: string, name: string): "missing" | "undocumented" | "ok" => {
  const at = new RegExp(`^export (?:const|function) ${name}\\b`, "m").exec(text)
  if (at === null) return "missing"
  const before = text.slice(0, at.index).trimEnd()
  const header = /^\s*\/\*\*([\s\S]*?)\*\//.exec(text)
  return before.endsWith("*/") || (header !== null && header[1]!.includes(`\`${name}\``)) ? "ok" : "undocumented"
}

/** Every problem of `sources` (path → text): tags without a double, stale or broken substitutes. */
export const doubleProblems = (sources: Sources, substitutes = SUBSTITUTES): ReadonlyArray<string> => {
  const problems: Array<string> = []
  const tags = [...sources].flatMap(([file, text]) => [...text.matchAll(TAG)].map((m) => ({ tag: m[1]!, file })))
  const inFolder = (file: string) => [...sources].filter(([f]) => path.dirname(f) === path.dirname(file))
  for (const { tag, file } of tags) {
    const name = doubleName(tag)
    const found = inFolder(file).map(([f, text]) => ({ f, state: documentedExport(text, name) })).filter((x) => x.state !== "missing")
    const substitute = substitutes[tag]
    if (substitute !== undefined) {
      if (found.length > 0) problems.push(`${tag}: has ${name} (${found[0]!.f}), so its entry in SUBSTITUTES is stale`)
      else if (!inFolder(file).some(([, text]) => documentedExport(text, substitute.double) !== "missing")) {
        problems.push(`${tag}: its substitute ${substitute.double} is not exported beside it (${path.dirname(file)})`)
      }
      continue
    }
    if (found.length === 0) problems.push(`${tag} (${file}): no ${name} in ${path.dirname(file)}/ and no entry in SUBSTITUTES`)
    for (const x of found) if (x.state === "undocumented") problems.push(`${tag}: ${name} in ${x.f} has no doc comment (what it fakes, what it records)`)
  }
  for (const tag of Object.keys(substitutes)) if (!tags.some((t) => t.tag === tag)) problems.push(`SUBSTITUTES names ${tag}, which is no tag in src/`)
  return problems
}

/**
 * The doubles (`<Tag>Test`) that nothing uses: no test file names them, and no other module of src/
 * (a double built on another). A double kept only to satisfy the rule above proves nothing; the
 * tag gets a substitute entry instead (for a store: its real layer, which its tests run over the
 * test database on both dialects).
 */
export const idleDoubles = (sources: Sources, tests: ReadonlyArray<string>): ReadonlyArray<string> => {
  const idle: Array<string> = []
  for (const [file, text] of sources) {
    for (const m of text.matchAll(TAG)) {
      const name = doubleName(m[1]!)
      const word = new RegExp(`\\b${name}\\b`)
      const home = [...sources].find(([f, t]) => path.dirname(f) === path.dirname(file) && new RegExp(`^export (?:const|function) ${name}\\b`, "m").test(t))
      if (home === undefined) continue
      const usedInSrc = [...sources].some(([f, t]) => f !== home[0] && word.test(t))
      if (!usedInSrc && !tests.some((t) => word.test(t))) idle.push(`${name} (${home[0]})`)
    }
  }
  return idle
}

const sourceFiles = (dir: string): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name)
    return e.isDirectory() ? sourceFiles(p) : p.endsWith(".ts") ? [p] : []
  })

const sources: Sources = new Map(sourceFiles(SRC).map((f) => [path.relative(SRC, f), fs.readFileSync(f, "utf8")]))
const TEST = path.resolve(import.meta.dirname, "..")
const testSources = sourceFiles(TEST).map((f) => fs.readFileSync(f, "utf8"))

describe("test doubles", () => {
  it("finds the tags of src/", () => {
    const tags = [...sources.values()].flatMap((t) => [...t.matchAll(TAG)])
    expect(tags.length).toBeGreaterThan(20)
  })

  it("every Context.Tag in src/ has a documented <Tag>Test beside it, or a substitute with its reason", () => {
    expect(doubleProblems(sources)).toEqual([])
  })

  it("fails for a tag added without a double, for an undocumented double, and for a stale substitute", () => {
    const tree = new Map([
      ["services/widgets/Widgets.ts", 'export class Widgets extends Context.Tag("agent-bridge/Widgets")<Widgets, {}>() {}'],
      ["services/gadgets/Gadgets.ts", 'export class GadgetsService extends Context.Tag("agent-bridge/Gadgets")<GadgetsService, {}>() {}'],
      ["services/gadgets/GadgetsTest.ts", "import x from 'y'\nexport const GadgetsTest = 1"],
      ["common/Clock2.ts", 'export class Clock2 extends Context.Tag("agent-bridge/Clock2")<Clock2, {}>() {}\n/** in memory */\nexport const Clock2Test = 1']
    ])
    expect(doubleProblems(tree, { Clock2: { double: "Clock2Live", reason: "r" }, Gone: { double: "GoneLive", reason: "r" } })).toEqual([
      "Widgets (services/widgets/Widgets.ts): no WidgetsTest in services/widgets/ and no entry in SUBSTITUTES",
      "GadgetsService: GadgetsTest in services/gadgets/GadgetsTest.ts has no doc comment (what it fakes, what it records)",
      "Clock2: has Clock2Test (common/Clock2.ts), so its entry in SUBSTITUTES is stale",
      "SUBSTITUTES names Gone, which is no tag in src/"
    ])
  })

  it("every double is used by a test (or by another double)", () => {
    expect(idleDoubles(sources, testSources)).toEqual([])
  })

  it("names a double no test uses, and passes one a test or another double uses (the check can fail)", () => {
    const tree = new Map([
      ["services/a/A.ts", 'export class A extends Context.Tag("agent-bridge/A")<A, {}>() {}\n/** d */\nexport const ATest = 1'],
      ["services/b/B.ts", 'export class B extends Context.Tag("agent-bridge/B")<B, {}>() {}\n/** d */\nexport const BTest = 1'],
      ["services/c/C.ts", 'export class C extends Context.Tag("agent-bridge/C")<C, {}>() {}\n/** d */\nexport const CTest = BTest'],
      ["services/d/D.ts", 'export class D extends Context.Tag("agent-bridge/D")<D, {}>() {}\n/** d */\nexport const DTest = 1']
    ])
    expect(idleDoubles(tree, ['import { CTest } from "x"', "const DTestimony = 1"])).toEqual(["ATest (services/a/A.ts)", "DTest (services/d/D.ts)"])
  })

  it("passes a tag whose double is documented in its module's header", () => {
    const tree = new Map([
      ["services/widgets/Widgets.ts", 'export class Widgets extends Context.Tag("agent-bridge/Widgets")<Widgets, {}>() {}'],
      ["services/widgets/WidgetsTest.ts", "/** `WidgetsTest`: fakes widgets; records none. */\nimport x from 'y'\nexport const WidgetsTest = 1"]
    ])
    expect(doubleProblems(tree, {})).toEqual([])
  })

  it("no module of src/ imports vitest or test/ (the doubles ship in the product, dependency-free of the test runner)", () => {
    const bad = [...sources].filter(([, text]) => /from\s+["'](?:vitest|@effect\/vitest|[./]*\/test\/)/.test(text)).map(([f]) => f)
    expect(bad).toEqual([])
  })
})
