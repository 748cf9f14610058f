/**
 * The profile's skills over the MCP skills extension (`skills/list`, `skills/get`, and each
 * `SKILL.md` as a `skill://` resource), for clients that read skills natively. It serves exactly
 * what `agent_skills_list` and `agent_skill_get` serve, through the same `Skills` service: shipped
 * and drop-in skills, `SKILL.md` redacted and cut at 16 KiB. Supporting files are named by the
 * tools but not served (the tools do not serve their contents either). Writing stays with
 * `agent_skill_put`, through the operator's inbox.
 */
import type { McpServer, ServerContext } from "@modelcontextprotocol/server"
import { SkillsExtension, type SkillSource } from "@modelcontextprotocol/server/ext/skills"
import { Effect, Either } from "effect"
import { createHash } from "node:crypto"
import type { BridgeError } from "../../domain/errors.ts"
import type { SkillDoc, SkillSummary } from "../../domain/skills/wire.ts"
import { Caller } from "../../request/Caller.ts"
import { Skills } from "../../services/skills/Skills.ts"
import { identityOf } from "./identity.ts"

export const SKILLS_BASE_URI = "skill://hermes/"

/** Runs a Skills operation in the daemon's runtime. */
export type SkillsRun = <A>(program: Effect.Effect<A, BridgeError, Skills>) => Promise<Either.Either<A, BridgeError>>

export interface SkillsBridge {
  readonly attach: (mcp: McpServer) => void
}

const skillMdUri = (name: string) => `${SKILLS_BASE_URI}${name}/SKILL.md`

/** The skill name a `skill://hermes/<name>/SKILL.md` URI names, if it names one. */
const nameOf = (uri: string): string | undefined => /^skill:\/\/hermes\/([a-z0-9-]{1,64})\/SKILL\.md$/.exec(uri)?.[1]

/**
 * The frontmatter the extension publishes. A skill without a description gets one that says what
 * it is (the extension needs a non-empty one); source and category ride along as extra fields.
 */
const frontmatter = (s: { name: string; source: string; category: string | null }, description: string | null) => ({
  name: s.name,
  description: (description ?? "").trim().slice(0, 1024) || `The ${s.source} Hermes skill ${s.name}.`,
  source: s.source,
  ...(s.category === null ? {} : { category: s.category })
})

const digestOf = (text: string) => {
  const bytes = Buffer.from(text, "utf8")
  return { digest: `sha256:${createHash("sha256").update(bytes).digest("hex")}`, size: bytes.byteLength }
}

/** The description a SKILL.md's frontmatter carries, read the simple way (one `description:` line). */
const describedIn = (skillMd: string): string | null => {
  const m = /^---\r?\n([\s\S]*?)\r?\n---/.exec(skillMd)
  const line = m?.[1]?.split(/\r?\n/).find((l) => l.startsWith("description:"))
  const value = line?.slice("description:".length).trim().replace(/^["']|["']$/g, "")
  return value === undefined || value.length === 0 ? null : value
}

const summaryEntry = (s: SkillSummary) => ({ uri: skillMdUri(s.name), frontmatter: frontmatter(s, s.description), resources: "dynamic" as const })

const docEntry = (d: SkillDoc) => {
  const uri = skillMdUri(d.name)
  return { uri, frontmatter: frontmatter(d, describedIn(d.skill_md)), resources: [{ uri, ...digestOf(d.skill_md) }] }
}

export const makeSkillsBridge = (run: SkillsRun): SkillsBridge => {
  const asCaller = <A>(ctx: ServerContext, op: (s: Skills["Type"]) => Effect.Effect<A, BridgeError, Caller>) =>
    run(Effect.flatMap(Skills, (s) => Effect.provideService(op(s), Caller, identityOf(ctx).caller)))

  const orThrow = <A>(e: Either.Either<A, BridgeError>): A => {
    if (Either.isLeft(e)) throw new Error(e.left.message)
    return e.right
  }

  /** The skill's document, or `undefined` when the URI names none this caller can read. */
  const docAt = async (uri: string, ctx: ServerContext): Promise<SkillDoc | undefined> => {
    const name = nameOf(uri)
    if (name === undefined) return undefined
    const got = await asCaller(ctx, (s) => s.get(name))
    if (Either.isLeft(got) && got.left._tag === "SkillNotFound") return undefined
    return orThrow(got)
  }

  const source: SkillSource = {
    list: async (_params, ctx) => {
      const listed = orThrow(await asCaller(ctx, (s) => s.list))
      // A skill whose frontmatter cannot be read has no name and description to publish.
      return { skills: listed.skills.filter((s) => !s.broken).map(summaryEntry) }
    },
    get: async (uri, ctx) => {
      const doc = await docAt(uri, ctx)
      return doc === undefined ? undefined : docEntry(doc)
    },
    read: async (uri, ctx) => {
      const doc = await docAt(uri, ctx)
      return doc === undefined ? undefined : { text: doc.skill_md, mimeType: "text/markdown" }
    }
  }
  // A warning names an entry the SDK dropped; it goes to the daemon's (redacting) log, not stderr.
  const onWarning = (w: { path: string; message: string }) =>
    void run(Effect.logWarning("skills extension: entry not served").pipe(Effect.annotateLogs({ path: w.path, problem: w.message })))
  const extension = new SkillsExtension({ source, baseUri: SKILLS_BASE_URI, onWarning })
  return { attach: (mcp) => extension.attach(mcp) }
}
