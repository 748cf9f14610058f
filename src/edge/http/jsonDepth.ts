/**
 * How deep a parsed JSON value nests, measured without recursion (a value nested 100,000 deep
 * parses, but any recursive walk of it, a decoder's or a serialiser's, overflows the stack).
 */

/** True when `value` holds arrays or objects nested more than `max` deep (the value itself is depth 1). */
export const nestsDeeperThan = (value: unknown, max: number): boolean => {
  const stack: Array<[unknown, number]> = [[value, 1]]
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!
    if (typeof v !== "object" || v === null) continue
    if (depth > max) return true
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (typeof child === "object" && child !== null) stack.push([child, depth + 1])
    }
  }
  return false
}
