/** Shared steps of both memory surfaces: input checks, storing a client's note, redacted views. */
import { Effect, Either } from "effect"
import { MemoryInvalid } from "../../domain/errors.ts"
import type { MemoryHit, MemoryNoteView } from "../../domain/memory.ts"
import type { RedactorShape } from "../../common/Redactor.ts"
import type { MemoryStoreShape, Note, ScoredNote } from "./MemoryStore.ts"
import { limitProblem, noteTags, textProblem } from "./policy.ts"

const check = (problem: string | null) =>
  problem === null ? Effect.void : Effect.fail(new MemoryInvalid({ message: problem }))

export const checkText = (text: string) => check(textProblem("text", text))
export const checkQuery = (query: string) => check(textProblem("query", query))
export const checkLimit = (limit: number) => check(limitProblem(limit))

/** Stores `text` for `client` in `namespace` with the policy's tags. */
export const storeNote = (
  store: MemoryStoreShape,
  input: { readonly namespace: string; readonly text: string; readonly tags: ReadonlyArray<string>; readonly client: string }
) =>
  Either.match(noteTags(input.client, input.tags), {
    onLeft: (message) => Effect.fail(new MemoryInvalid({ message })),
    onRight: (tags) => store.add({ namespace: input.namespace, text: input.text, tags, client: input.client })
  })

/** What leaves the bridge of a note: text and tags through the Redactor. */
export const noteView = (redactor: RedactorShape, n: Note): MemoryNoteView => ({
  id: n.id,
  text: redactor.text(n.text),
  tags: n.tags.map((t) => redactor.text(t)),
  namespace: n.namespace,
  timestamp: n.created_at
})

export const hitView = (redactor: RedactorShape, n: ScoredNote): MemoryHit => ({ ...noteView(redactor, n), score: n.score })
