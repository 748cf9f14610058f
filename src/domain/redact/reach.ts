/**
 * How much stored text before a window or page the redactor must see. Usually the last
 * `CONTEXT_CHARS`: every rule looks at most that far back from where a secret can start. A
 * multi-line secret can be longer: a PEM private key of 14 KB puts its BEGIN line far before a
 * window that starts inside its body, and without that line the body is only base64. So when the
 * context is nothing but block characters (base64, header lines, white space), it may lie inside
 * such a block, and the context reaches back over the whole run of block characters, up to
 * `BLOCK_REACH`, so that the BEGIN line is seen however far it lies.
 */
import { PEM_BODY } from "./rules/shapes.ts"

/** Context taken from each side of a window or page. */
export const CONTEXT_CHARS = 8192
/** The furthest the context reaches back into a block (the PEM rule's own reach, and its BEGIN line). */
export const BLOCK_REACH = 64 * 1024 + 128

/** Where the run of block characters that ends at `end` starts (not before `end - limit`). */
const blockRunStart = (text: string, end: number, limit: number): number => {
  const stop = Math.max(0, end - limit)
  let i = end
  while (i > stop && PEM_BODY.test(text[i - 1]!)) i--
  return i
}

/** True when `text` is all block characters: text before it may belong to the same block. */
export const mayContinueBlock = (text: string): boolean => blockRunStart(text, text.length, text.length) === 0

/**
 * The part of `before` the redactor sees: its last `CONTEXT_CHARS`, or, when those lie inside a run
 * of block characters, the whole run (up to `BLOCK_REACH`).
 */
export const contextBefore = (before: string): string => {
  if (before.length <= CONTEXT_CHARS) return before
  const tail = before.length - CONTEXT_CHARS
  const runStart = blockRunStart(before, before.length, BLOCK_REACH)
  return before.slice(runStart <= tail ? runStart : tail)
}
