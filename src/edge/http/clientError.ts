/**
 * Bytes that never become an HTTP request (not HTTP at all, a malformed request line or header,
 * headers over the size limit, a request not received in time) are refused by node's HTTP parser
 * before any route sees them. Node's own answer is a bare status line without a body; this answers
 * like every other refusal of the daemon: a JSON `{"error":{"code","message"}}` body, then the
 * connection is closed. The message names the problem from a fixed table and never echoes a byte
 * the client sent.
 */
import * as http from "node:http"
import type { Duplex } from "node:stream"
import { errorBody } from "./responses.ts"

export interface ClientErrorReply {
  readonly status: number
  readonly reason: string
  readonly code: string
  readonly message: string
}

/** What a parse error code (llhttp's `HPE_*`) says was wrong, in words. */
const PARSE_PROBLEMS: Readonly<Record<string, string>> = {
  HPE_INVALID_METHOD: "the request line does not start with an HTTP method",
  HPE_INVALID_URL: "the request target is not a valid URL path",
  HPE_INVALID_CONSTANT: "the request line does not end with an HTTP version",
  HPE_INVALID_VERSION: "the HTTP version is not one this server speaks (HTTP/1.0 or HTTP/1.1)",
  HPE_INVALID_HEADER_TOKEN: "a header name contains characters HTTP does not allow",
  HPE_INVALID_CONTENT_LENGTH: "the Content-Length header is not a number",
  HPE_UNEXPECTED_CONTENT_LENGTH: "the request has more than one Content-Length, or Content-Length with chunked encoding",
  HPE_INVALID_TRANSFER_ENCODING: "the Transfer-Encoding header is invalid",
  HPE_INVALID_CHUNK_SIZE: "the chunked body is malformed",
  HPE_CR_EXPECTED: "a line does not end with CRLF",
  HPE_LF_EXPECTED: "a line does not end with CRLF",
  HPE_STRICT: "the request breaks the HTTP/1.1 syntax",
  HPE_INVALID_EOF_STATE: "the connection ended in the middle of a request"
}

const reply = (status: number, reason: string, code: string, message: string): ClientErrorReply => ({ status, reason, code, message })

/** The answer to a `clientError` of this code (an `HPE_*` parse error or node's request timeout). */
export const clientErrorReply = (errorCode: string | undefined): ClientErrorReply => {
  switch (errorCode) {
    case "HPE_HEADER_OVERFLOW":
      return reply(431, "Request Header Fields Too Large", "http.headers_too_large", `the request line and headers are larger than the server accepts (${http.maxHeaderSize} bytes)`)
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return reply(413, "Payload Too Large", "http.payload_too_large", "the chunk extensions of the body are larger than the server accepts")
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return reply(408, "Request Timeout", "http.request_timeout", "the request was not received completely in time")
  }
  const problem = (errorCode !== undefined && PARSE_PROBLEMS[errorCode]) || "the bytes received are not an HTTP/1.1 request"
  return reply(400, "Bad Request", "http.bad_request", `not a valid HTTP request: ${problem}`)
}

/** The whole HTTP/1.1 response of `r`, as written on the socket. */
export const clientErrorResponse = (r: ClientErrorReply): string => {
  const body = JSON.stringify(errorBody(r.code, r.message))
  return [
    `HTTP/1.1 ${r.status} ${r.reason}`,
    "Content-Type: application/json",
    `Content-Length: ${Buffer.byteLength(body)}`,
    "Cache-Control: no-store",
    "Connection: close",
    "",
    body
  ].join("\r\n")
}

/**
 * After the answer the write side is closed and the rest of the client's input is read and dropped,
 * so the answer is not lost to a reset (closing a socket with unread input sends RST). A peer that
 * does not close its side in this time is cut.
 */
const LINGER_MS = 2_000

/** Node's in-flight response on this socket, if a request was being answered when the bytes went bad. */
const inFlightResponse = (socket: Duplex): { readonly headersSent?: boolean } | undefined =>
  // Node's own `clientError` default reads this same field: a status line must not be written into
  // the middle of a response that has started.
  (socket as Duplex & { readonly _httpMessage?: { readonly headersSent?: boolean } | null })._httpMessage ?? undefined

const answered = new WeakSet<Duplex>()

/** The `clientError` listener: answers once per connection, then closes it. */
export const onClientError = (error: Error & { readonly code?: string }, socket: Duplex): void => {
  // The parser keeps failing on every later chunk of the same connection: the first answer stands.
  if (answered.has(socket)) return
  answered.add(socket)
  if (error.code === "ECONNRESET" || !socket.writable || inFlightResponse(socket)?.headersSent === true) {
    socket.destroy()
    return
  }
  const cut = setTimeout(() => socket.destroy(), LINGER_MS)
  cut.unref()
  socket.once("close", () => clearTimeout(cut))
  socket.end(clientErrorResponse(clientErrorReply(error.code)))
  socket.resume()
}

/** Makes `server` answer bytes its parser refuses with the daemon's JSON error (instead of node's bare 400). */
export const answerClientErrorsWithJson = (server: http.Server): http.Server => server.on("clientError", onClientError)
