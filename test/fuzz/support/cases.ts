/**
 * Fuzz cases for one tool. Families:
 * - `schema`: `Arbitrary.make(tool.input)`, i.e. inputs the schema accepts;
 * - `biased`: schema inputs with fields set to values that reach deeper code (real agents, run ids
 *   of this client and of another, note ids, skill names, FTS syntax, key edge cases, and for
 *   `tool_call` real tool names with their own generated arguments);
 * - `hostile`: one field replaced by a hostile value (wrong type, broken unicode, huge, deep);
 * - `shape`: the whole `arguments` replaced (not an object, deep, 10k keys, `__proto__`, extra keys);
 * - `unknown`: tool names the caller cannot call.
 * A case carries its arguments as JSON text, and what the protocol layer must do with it.
 */
import { Arbitrary, FastCheck, SchemaAST } from "effect"
import type { ToolDef } from "../../../src/edge/mcp/ToolDef.ts"
import { HOSTILE_ARGUMENTS, HOSTILE_FRAGMENTS, HUGE_STRINGS, mulberry32, pick } from "./hostile.ts"

export type Family = "schema" | "biased" | "hostile" | "shape" | "unknown"

export interface FuzzCase {
  readonly tool: string
  readonly family: Family
  /** The `arguments` JSON text; `undefined` sends no `arguments` key. */
  readonly args: string | undefined
}

/** Ids and names that exist in the fuzzed daemon, so biased inputs reach past "not found". */
export interface Hot {
  readonly ownRuns: ReadonlyArray<string>
  readonly foreignRuns: ReadonlyArray<string>
  readonly ownNotes: ReadonlyArray<string>
  readonly foreignNotes: ReadonlyArray<string>
  readonly skills: ReadonlyArray<string>
  readonly foreignIdempotencyKeys: ReadonlyArray<string>
}

export interface CaseCounts {
  readonly schema: number
  readonly biased: number
  readonly hostile: number
  readonly shape: number
}

const fieldNames = (tool: ToolDef): ReadonlyArray<string> => {
  const ast = tool.input.ast
  return SchemaAST.isTypeLiteral(ast) ? ast.propertySignatures.map((p) => String(p.name)) : []
}

/** Strings with every kind of UTF-16 (lone surrogates included) and whole graphemes. */
const unicodeString = FastCheck.oneof(
  FastCheck.string({ unit: "binary", maxLength: 40 }),
  FastCheck.string({ unit: "grapheme", maxLength: 40 }),
  FastCheck.string({ unit: "binary-ascii", maxLength: 40 })
)

const SKILL_MD = (name: string) => `---\nname: ${name}\ndescription: A fuzzed skill.\n---\n\n# ${name}\n\nDo the thing.\n`

/** Values for a field by name, chosen to pass the schema and reach the service behind it. */
const hotValues = (field: string, hot: Hot, rng: () => number, unicode: () => string): ReadonlyArray<unknown> => {
  switch (field) {
    case "agent":
      return ["hermes", "hermes", "shared", "hermes/default", "hermes/nope", "HERMES", "hermes/", "pi", " hermes", unicode()]
    case "run_id":
      return [...hot.ownRuns, ...hot.foreignRuns, `run_${"0".repeat(32)}`, `run_${"A".repeat(32)}`, "run_", unicode()]
    case "id":
      return [...hot.ownNotes, ...hot.foreignNotes, "mem_0", "mem_", unicode()]
    case "name":
      return [...hot.skills, "fuzz-skill", "a", "a-", "-a", "a--b", "A", "x".repeat(64), "x".repeat(65), "../etc", "bridge-memory", unicode()]
    case "skill_md":
      return [SKILL_MD("fuzz-skill"), SKILL_MD(pick(rng, hot.skills)), "---\n---\n", "no frontmatter", `---\nname: [\n---\n`, `${SKILL_MD("fuzz-skill")}${"x".repeat(17 * 1024)}`, unicode()]
    case "files":
      return [{}, { "notes.md": "text" }, { "../x": "y" }, { "a/b": "c" }, { ".hidden": "x" }, { "SKILL.md": "x" }, { "": "" },
        { "bin.dat": "\u0000\u0001\u0002" }, Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`f${i}.md`, "x"])),
        { "big.md": "x".repeat(49 * 1024) }, { [unicode()]: unicode() }]
    case "query":
      return ['"unterminated', "NEAR(a b, 2)", "*", "a OR", "AND", "-x", "col:value", "\u0000", "a*", '"a b"', "fuzz", "", " ", unicode()]
    case "text":
    case "input":
    case "instructions":
      return ["fuzz note", "ghp_abcdefghijklmnopqrstuvwxyz0123456789 token=hunter2", "", " ", "x".repeat(16 * 1024 + 1), unicode()]
    case "session_key":
    case "idempotency_key":
      return [...hot.foreignIdempotencyKeys, "k", "a b", "\u007f", "x".repeat(250), "x".repeat(257), "é", "", "fuzz:key", unicode()]
    case "request_id":
      return ["req_1", "clarify_0", "", unicode()]
    case "answer":
      return ["yes", ["a", "b"], [], [""], unicode()]
    case "wait_s":
    case "timeout_s":
      // Small, so a call that reaches a live run returns quickly: the fuzz stays bounded in time.
      return [0, -0, 0.01, 0.2, 1e-9, 5e-324]
    case "offset":
    case "since_seq":
      return [0, 1, 16384, 16385, 2 ** 31, 2 ** 53 - 1, 1e15]
    case "limit":
      return [0, 1, 10, 50, 51, 200, 201, 500, 501, 2 ** 31]
    case "tags":
      return [[], ["agent:x", "source:bridge:other", "Visibility:x", "project:p"], Array.from({ length: 1000 }, (_, i) => `t${i}`), [""], [unicode()]]
    case "queries":
      return [["run"], ["memory", "skill"], [""], Array.from({ length: 10 }, () => unicode()), [unicode()]]
    case "names":
      return [["agent_run"], ["tool_call"], ["agent_run", "nope", "agent_run"], Array.from({ length: 16 }, () => "agents_list"), [unicode()]]
    default:
      return []
  }
}

const toText = (entries: ReadonlyArray<readonly [string, string]>) =>
  `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",")}}`

/** Each key's JSON text; a key whose value JSON cannot carry (`undefined`) is left out, as JSON.stringify does. */
const entriesOf = (value: unknown): Array<[string, string]> =>
  Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => {
    const text = JSON.stringify(v) as string | undefined
    return text === undefined ? [] : [[k, text] as [string, string]]
  })

export interface CaseSource {
  /** Generated cases for `tool`. */
  readonly casesFor: (tool: ToolDef, counts: CaseCounts) => ReadonlyArray<FuzzCase>
}

/**
 * `reachable` are the tools `tool_call` may name (for biased nested calls); `seed` makes every
 * case reproducible.
 */
export const caseSource = (hot: Hot, reachable: ReadonlyArray<ToolDef>, seed: number): CaseSource => {
  const rng = mulberry32(seed)
  let sampleSeed = seed
  const sample = <A>(arb: FastCheck.Arbitrary<A>, n: number): Array<A> => FastCheck.sample(arb, { numRuns: n, seed: sampleSeed++ })
  const unicode = () => sample(unicodeString, 1)[0]!

  const schemaArgs = (tool: ToolDef, n: number) => sample(Arbitrary.make(tool.input), n) as Array<Record<string, unknown>>

  /**
   * Waits bounded in time: a sampled `wait_s` / `timeout_s` can be up to the longest wait, and a
   * missing `timeout_s` is the default wait (`WAIT_DEFAULT_SECONDS`), both past a call's deadline
   * on a run that is still live. Every wait a case asks for is a fraction of a second.
   */
  const shortWaits = (tool: ToolDef, args: Record<string, unknown>): Record<string, unknown> => {
    const out = { ...args }
    for (const field of ["wait_s", "timeout_s"]) if (field in out) out[field] = pick(rng, [0, 0.01, 0.2])
    if (fieldNames(tool).includes("timeout_s") && !("timeout_s" in out)) out["timeout_s"] = pick(rng, [0, 0.01, 0.2])
    return out
  }

  const biasedArgs = (tool: ToolDef, depth: number): Record<string, unknown> => {
    const base = { ...schemaArgs(tool, 1)[0] }
    for (const field of fieldNames(tool)) {
      if (field === "calls") {
        base[field] = depth > 0 ? [] : Array.from({ length: 1 + Math.floor(rng() * 3) }, () => {
          const inner = rng() < 0.9 ? pick(rng, reachable) : undefined
          return inner === undefined
            ? { name: pick(rng, ["tool_call", "tool_search", "nope", unicode()]), arguments: {} }
            : { name: inner.name, arguments: biasedArgs(inner, depth + 1) }
        })
        continue
      }
      const values = hotValues(field, hot, rng, unicode)
      if (values.length > 0 && rng() < 0.7) base[field] = pick(rng, values)
    }
    return shortWaits(tool, base)
  }

  const hostileArgs = (tool: ToolDef): string => {
    const fields = fieldNames(tool)
    const entries = entriesOf(shortWaits(tool, schemaArgs(tool, 1)[0]!))
    const field = fields.length > 0 && rng() < 0.9 ? pick(rng, fields) : `extra_${Math.floor(rng() * 100)}`
    const value = rng() < 0.03 ? JSON.stringify(pick(rng, HUGE_STRINGS)) : pick(rng, HOSTILE_FRAGMENTS)
    const kept = entries.filter(([k]) => k !== field)
    // Where the hostile value goes among the keys does not matter to JSON; to the decoder it might.
    return toText(rng() < 0.5 ? [...kept, [field, value]] : [[field, value], ...kept])
  }

  return {
    casesFor: (tool, counts) => {
      const out: Array<FuzzCase> = []
      for (const args of schemaArgs(tool, counts.schema)) out.push({ tool: tool.name, family: "schema", args: toText(entriesOf(shortWaits(tool, args))) })
      for (let i = 0; i < counts.biased; i++) out.push({ tool: tool.name, family: "biased", args: toText(entriesOf(biasedArgs(tool, 0))) })
      for (let i = 0; i < counts.hostile; i++) out.push({ tool: tool.name, family: "hostile", args: hostileArgs(tool) })
      for (let i = 0; i < counts.shape; i++) {
        const args = i < HOSTILE_ARGUMENTS.length ? HOSTILE_ARGUMENTS[i] : pick(rng, HOSTILE_ARGUMENTS)
        out.push({ tool: tool.name, family: "shape", args })
      }
      return out
    }
  }
}
