import { type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';

/**
 * What Node answers before any route sees a request — headers larger than Node's limit (16 KiB), a
 * request line or header that does not parse, a client too slow for REQUEST_TIMEOUT — in the shape of
 * every other error (docs/reference/errors.md: `{"message"}`), not Fastify's `{"error", "message",
 * "statusCode"}`. Nothing of the request is echoed; the connection is closed, as Node does.
 */
const ANSWERS: Readonly<Record<string, [number, string]>> = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large.'],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, 'The request body is too large.'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout.'],
};

export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  // A reset connection, or one already gone: nobody to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] = ANSWERS[error.code ?? ''] ?? [400, 'Bad Request.'];
  const body = JSON.stringify({ message });
  // Not while an answer to an earlier request on this connection is on its way (keep-alive, or a body
  // still arriving after an early 413): our bytes would land inside it. Node's own handler checks the same.
  const answering = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (socket.writable && !answering?.headersSent) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
