/** What a rule reports: a span of the text to mask, and what it is (for the skill-push message). */

export type FindingKind =
  | "assignment" // NAME=value, NAME: value, a JSON key's value
  | "flag" // --token value, curl -u user:password
  | "authorization" // Authorization header / Bearer / Basic credential
  | "url-password" // scheme://user:password@host
  | "jwt"
  | "private-key" // PEM private-key block body
  | "token" // known prefix
  | "exact" // a registered secret, or one of its encodings

export interface Finding {
  readonly start: number
  readonly end: number
  readonly kind: FindingKind
  /** The value was written in quotes. */
  readonly quoted: boolean
  /** The name (`HF_TOKEN`), the flag, or what the token is ("a GitHub token"). */
  readonly detail: string
}

import type { RunCache } from "./bounded.ts"

/** One scan over one text: the rules append what they find. */
export interface ScanContext {
  readonly text: string
  /** The text ends at the newest stored event of an unfinished run. */
  readonly liveEdge: boolean
  readonly findings: Array<Finding>
  /**
   * True when a secret may start at `at`: the character before it is no `wordChar`, or it ends a
   * span already found (once masked, it will be a `*`; see `scan.ts`).
   */
  readonly startsWord: (at: number, wordChar: (c: string) => boolean) => boolean
  /** Character runs already measured in this text. */
  readonly runs: RunCache
}
