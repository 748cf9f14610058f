/**
 * The inbox card of a skill put: exactly the text approval writes, never cut (docs/REFERENCE.md). The
 * digest is the SHA-256 of a `sha256sum`-style manifest (`<sha256>  <file>\n` per file, SKILL.md
 * included, sorted by name), so an operator can check a folder on disk against a card by hand.
 */
import { createHash } from "node:crypto"
import { SKILL_MD, utf8Bytes } from "./limits.ts"
import type { SkillPush } from "./validate.ts"

export interface SkillFileCard {
  readonly size: number
  readonly sha256: string
  readonly content: string
}

/** Exactly what approving a skill put writes; shown whole on the card, never cut. */
export interface SkillCard {
  readonly name: string
  readonly preview: string
  readonly preview_truncated: false
  readonly files: Readonly<Record<string, SkillFileCard>>
  readonly bytes: number
  readonly digest: string
}

export const sha256Hex = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex")

const fileCard = (content: string): SkillFileCard => ({ size: utf8Bytes(content), sha256: sha256Hex(content), content })

/** The manifest digest over SKILL.md and every supporting file. */
export const skillDigest = (skillMd: string, files: Readonly<Record<string, string>>): string => {
  const entries: Array<readonly [string, string]> = [[SKILL_MD, sha256Hex(skillMd)]]
  for (const [name, content] of Object.entries(files)) entries.push([name, sha256Hex(content)])
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return sha256Hex(entries.map(([name, hash]) => `${hash}  ${name}\n`).join(""))
}

export const makeSkillCard = (push: SkillPush): SkillCard => {
  const names = Object.keys(push.files).sort()
  const files: Record<string, SkillFileCard> = {}
  for (const name of names) files[name] = fileCard(push.files[name] ?? "")
  return {
    name: push.name,
    preview: push.skillMd,
    preview_truncated: false,
    files,
    bytes: utf8Bytes(push.skillMd) + names.reduce((n, f) => n + (files[f]?.size ?? 0), 0),
    digest: skillDigest(push.skillMd, push.files)
  }
}

/** What approving the card writes: SKILL.md and the supporting files. */
export const cardContents = (card: SkillCard): { readonly skillMd: string; readonly files: Record<string, string> } => ({
  skillMd: card.preview,
  files: Object.fromEntries(Object.entries(card.files).map(([name, f]) => [name, f.content]))
})

/** True when the card's sizes, hashes and digest match its contents (a stored card was not altered). */
export const cardIsIntact = (card: SkillCard): boolean => {
  const { skillMd, files } = cardContents(card)
  const fresh = makeSkillCard({ name: card.name, skillMd, files })
  return fresh.digest === card.digest && fresh.bytes === card.bytes &&
    Object.entries(card.files).every(([n, f]) => fresh.files[n]?.sha256 === f.sha256 && fresh.files[n]?.size === f.size)
}
