/**
 * Hostile JSON values, as JSON text (some only exist as text: `-0`, `1e999` parses to Infinity,
 * duplicate keys, escaped lone surrogates). Every fragment stays under the MCP body limit (4 MiB)
 * once embedded in a request, so the tool itself, not the transport, has to deal with it.
 */

const str = (s: string) => JSON.stringify(s)

/** `depth` nested arrays: `[[[…]]]`. */
export const deepArray = (depth: number) => "[".repeat(depth) + "]".repeat(depth)
/** `depth` nested objects: `{"a":{"a":…{}}}`. */
export const deepObject = (depth: number) => '{"a":'.repeat(depth) + "{}" + "}".repeat(depth)

const manyKeys = (n: number) => `{${Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(",")}}`

export const MB = 1 << 20

/** Strings that break naive code: control characters, broken UTF-16, bidi tricks, injections, sizes. */
export const HOSTILE_STRINGS: ReadonlyArray<string> = [
  "", " ", "\u0000", "a\u0000b", "\u0000".repeat(64), "\ud800", "\udfff", "x\ud83d", "\ud83d\ude00\ud800",
  "\u202eevil\u202c", "\u202d\u2066rtl\u2069", "\ufeff", "\u200b\u200c\u200d", "👩‍👩‍👧‍👦", "e\u0301\u0301\u0301",
  "\r\n\r\nX-Injected: 1", "\t\v\f\b", "\u001b[31mred", "\u2028\u2029", "__proto__", "constructor", "prototype",
  "'; DROP TABLE runs; --", '" OR 1=1 --', "../../../etc/passwd", "..\\..\\windows", "%00%2e%2e%2f", "${jndi:ldap://x}",
  "<script>alert(1)</script>", "\\u0000", "{{7*7}}", "%s%n%x", "NaN", "Infinity", "-0", "1e308", "0x10", "true", "null",
  `run_${"0".repeat(32)}`, `run_${"F".repeat(32)}`, "run_", "mem_", "hermes", "hermes/", "hermes/../default", "HERMES",
  "shared", '"unterminated', "NEAR(a b, 2)", "*", "a OR", "AND", "col:value", "^x", "-x", "a*b*", "(((", "\u0000*",
  "x".repeat(1024), "x".repeat(16 * 1024), "x".repeat(16 * 1024 + 1), "é".repeat(8 * 1024 + 1)
]

/** The same, megabyte-sized (kept to a few: each costs a megabyte per call). */
export const HUGE_STRINGS: ReadonlyArray<string> = [
  "x".repeat(MB), "é".repeat(MB / 2), `${"a\u0000".repeat(64 * 1024)}`, "\ud800".repeat(100_000), "\u202e".repeat(MB / 4)
]

export const HOSTILE_NUMBERS: ReadonlyArray<string> = [
  "0", "-0", "1", "-1", "1.5", "0.5", "1e308", "-1e308", "1e999", "-1e999", "5e-324", "9007199254740993",
  "2147483648", "4294967296", "1e21", "601", "600.0000001", "16384", "16385", "-0.0", "0e0", "1E2"
]

/** Values of the wrong type or shape for any field. */
export const HOSTILE_SHAPES: ReadonlyArray<string> = [
  "null", "true", "false", "[]", "{}", "[null]", '[""]', '{"a":1}', "[1,2,3]", '["a",{"b":[]}]',
  '{"__proto__":{"polluted":true}}', '{"constructor":{"prototype":{"polluted":true}}}',
  deepArray(10_000), deepObject(10_000), `[${Array.from({ length: 100_000 }, (_, i) => i).join(",")}]`, manyKeys(10_000),
  str("\"quoted\""), `[${str("\ud800")}]`
]

/** Every hostile value as a JSON fragment. */
export const HOSTILE_FRAGMENTS: ReadonlyArray<string> = [
  ...HOSTILE_STRINGS.map(str), ...HOSTILE_NUMBERS, ...HOSTILE_SHAPES
]

/** Whole `arguments` values that are not a plain object, or objects no tool takes. */
export const HOSTILE_ARGUMENTS: ReadonlyArray<string | undefined> = [
  undefined, "null", "[]", "[{}]", '"agent"', "42", "-0", "1e999", "true", "{}", deepArray(10_000), deepObject(10_000),
  manyKeys(10_000), '{"__proto__":{"agent":"hermes"}}', '{"":""}', `{${str("k".repeat(MB))}:1}`, `{${str("\ud800")}:1}`,
  '{"extra":1,"another":[{}]}'
]

/** Bodies that are not one well-formed JSON-RPC request. */
export const MALFORMED_BODIES: ReadonlyArray<string> = [
  "", " ", "{", "}", "[", "null", "true", "0", '""', "{}", "[]", "[[]]", "{'jsonrpc':'2.0'}", '{"jsonrpc":"2.0"', "NaN",
  '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"agents_list","arguments":{}}}garbage',
  '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"agents_list","arguments":{},}}',
  '// comment\n{"jsonrpc":"2.0","id":1,"method":"ping"}', '\ufeff{"jsonrpc":"2.0","id":1,"method":"ping"}',
  '{"jsonrpc":"1.0","id":1,"method":"ping"}', '{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}',
  '{"jsonrpc":"2.0","id":1,"method":42}', '{"jsonrpc":"2.0","id":1}', '{"jsonrpc":"2.0","id":1,"method":"tools/call"}',
  '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[]}', '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":42}}',
  '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}', '{"jsonrpc":"2.0","id":1,"method":"no/such/method","params":{}}',
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}', '{"jsonrpc":"2.0","id":1,"result":{}}',
  '{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"}}', '[{"jsonrpc":"2.0","id":1,"method":"ping"},42]',
  `[${Array.from({ length: 200 }, (_, i) => `{"jsonrpc":"2.0","id":${i},"method":"ping"}`).join(",")}]`,
  deepArray(10_000), deepObject(10_000), '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"\\ud800"}}',
  '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"agents_list","arguments":{},"_meta":{"progressToken":{"x":[]}}}}',
  '{"jsonrpc":"2.0","id":1e999,"method":"ping"}', '{"jsonrpc":"2.0","id":-0,"method":"ping"}',
  '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"\\u0000","arguments":{}}}'
]

/** Random bytes that are mostly not UTF-8 (seeded). */
export const randomBytes = (rng: () => number, n: number): Uint8Array<ArrayBuffer> => Uint8Array.from({ length: n }, () => Math.floor(rng() * 256))

/** A small seeded PRNG, so a failing case can be replayed from the printed seed. */
export const mulberry32 = (seed: number) => () => {
  seed |= 0
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

export const pick = <A>(rng: () => number, xs: ReadonlyArray<A>): A => xs[Math.floor(rng() * xs.length)]!
