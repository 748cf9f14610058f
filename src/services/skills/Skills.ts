/**
 * The teach tools' skills: read shipped and drop-in skills, and propose changes that wait in the
 * inbox. This file is the interface and the "no inbox" layer; `SkillsLive` implements it.
 */
import { Context, Effect, Layer } from "effect"
import type { BridgeError } from "../../domain/errors.ts"
import { Unavailable } from "../../domain/errors.ts"
import type { SkillChangeQueued, SkillDoc, SkillsList } from "../../domain/skills/wire.ts"
import type { Caller } from "../../request/Caller.ts"

type Op<A> = Effect.Effect<A, BridgeError, Caller>

export interface SkillsShape {
  readonly list: Op<SkillsList>
  readonly get: (name: string) => Op<SkillDoc>
  readonly put: (name: string, skillMd: string, files: Readonly<Record<string, string>> | undefined) => Op<SkillChangeQueued>
  readonly remove: (name: string) => Op<SkillChangeQueued>
}

export class Skills extends Context.Tag("agent-bridge/Skills")<Skills, SkillsShape>() {}

/** No approval inbox: every call, reads too, is `bridge.unavailable`. */
export const SkillsNotRunning = Layer.succeed(Skills, (() => {
  const no = () => Effect.fail(new Unavailable({ message: "no approval inbox is running" }))
  return { list: no(), get: no, put: no, remove: no }
})())
