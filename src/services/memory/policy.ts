/**
 * Memory policy, pure (docs/REFERENCE.md): the bridge, never the request, picks the
 * namespace; every note carries `source:bridge:<client>`; client tags with a reserved prefix are
 * dropped, because the memory layer reads a note's owner and visibility from those tags.
 */
import { Either } from "effect"
import { MEMORY_LIMITS } from "../../domain/limits.ts"
import { nulProblem } from "../../domain/text.ts"

export const SHARED_NAMESPACE = "shared"
export const SOURCE_TAG_PREFIX = "source:bridge:"
/** Compared against each client tag after `foldTag`. */
export const RESERVED_TAG_PREFIXES: ReadonlyArray<string> = ["agent:", "visibility:", "project:", SOURCE_TAG_PREFIX]


/** `hermes` (profile "default") → `private:hermes`; `hermes/<p>` → `private:hermes__<p>`. */
export const hermesNamespace = (profile: string): string =>
  profile === "default" ? "private:hermes" : `private:hermes__${profile}`

/** A bridge client's own private namespace. */
export const clientNamespace = (client: string): string => `private:${client}`

export const sourceTag = (client: string): string => `${SOURCE_TAG_PREFIX}${client}`

/** Invisible characters (format controls, joiners, variation selectors) that a reader skips over. */
const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu

/**
 * The form a tag is compared in: invisible characters dropped, compatibility-normalised (NFKC:
 * full-width letters, small and presentation colons, math letters, `ſ` become plain ones), case
 * folded (upper then lower, so `ı` and `ſ` meet `i` and `s`), normalised again and trimmed. A tag
 * that only looks like a reserved one to a person, or to a memory layer that normalises, is caught.
 */
export const foldTag = (tag: string): string =>
  tag.replace(INVISIBLE, "").normalize("NFKC").toUpperCase().toLowerCase().normalize("NFKC").trim()

export const isReservedTag = (tag: string): boolean => {
  const folded = foldTag(tag)
  return RESERVED_TAG_PREFIXES.some((p) => folded.startsWith(p))
}

/**
 * The tags stored with a client's note: its own tags trimmed, blanks, duplicates and reserved
 * prefixes (after `foldTag`) dropped; kept tags are stored as written, then `source:bridge:<client>`. Too many or too long tags are refused.
 */
export const noteTags = (client: string, requested: ReadonlyArray<string>): Either.Either<ReadonlyArray<string>, string> => {
  const kept: Array<string> = []
  for (const raw of requested) {
    const tag = raw.trim()
    const nul = nulProblem("a tag", tag)
    if (nul !== null) return Either.left(nul)
    if (tag === "" || isReservedTag(tag) || kept.includes(tag)) continue
    if ([...tag].length > MEMORY_LIMITS.tagCharsMax) {
      return Either.left(`a tag is longer than ${MEMORY_LIMITS.tagCharsMax} characters`)
    }
    kept.push(tag)
  }
  if (kept.length > MEMORY_LIMITS.tagsMax) return Either.left(`a note holds at most ${MEMORY_LIMITS.tagsMax} tags`)
  return Either.right([...kept, sourceTag(client)])
}

/** An empty (or blank) or oversized (> 16 KiB of UTF-8) text or query. */
export const textProblem = (what: "text" | "query", s: string): string | null => {
  if (s.trim() === "") return `the ${what} is empty`
  const nul = nulProblem(`the ${what}`, s)
  if (nul !== null) return nul
  const bytes = Buffer.byteLength(s, "utf8")
  return bytes > MEMORY_LIMITS.textBytesMax
    ? `the ${what} is ${bytes} bytes; at most ${MEMORY_LIMITS.textBytesMax} (16 KiB) are allowed`
    : null
}

export const limitProblem = (limit: number): string | null =>
  Number.isInteger(limit) && limit >= MEMORY_LIMITS.limitMin && limit <= MEMORY_LIMITS.limitMax
    ? null
    : `limit must be a whole number from ${MEMORY_LIMITS.limitMin} to ${MEMORY_LIMITS.limitMax}`

/** The text the index holds for a note's tags: the client's own tags, not the bridge's source tag. */
export const indexedTags = (tags: ReadonlyArray<string>): string =>
  tags.filter((t) => !t.toLowerCase().startsWith(SOURCE_TAG_PREFIX)).join(" ")
