/**
 * A synchronous Effect Schema as a Standard Schema (v1), for the SDK's `setRequestHandler(method,
 * { params }, …)`. `Schema.standardSchemaV1` forks a fiber on a scheduler of its own for every
 * value it validates (it must allow asynchronous schemas); a task method's params are plain data,
 * so the decoder is compiled once (`Schema.decodeUnknownEither`) and each request is decoded in
 * place. Failures read as `Schema.standardSchemaV1`'s do: one issue per problem, with its path.
 */
import type { StandardSchemaV1Sync } from "@modelcontextprotocol/server"
import { Either, ParseResult, Schema } from "effect"

export const syncStandardSchema = <A, I>(schema: Schema.Schema<A, I, never>): StandardSchemaV1Sync<I, A> => {
  const decode = Schema.decodeUnknownEither(schema, { errors: "all" })
  return {
    "~standard": {
      version: 1,
      vendor: "effect",
      validate: (value) => {
        const decoded = decode(value)
        if (Either.isRight(decoded)) return { value: decoded.right }
        return { issues: ParseResult.ArrayFormatter.formatErrorSync(decoded.left).map((i) => ({ message: i.message, path: i.path })) }
      }
    }
  }
}
