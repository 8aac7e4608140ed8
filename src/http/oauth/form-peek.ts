import type { Readable } from 'node:stream';

/** The largest body read ahead: an introspection request is a token and a hint. */
export const PEEK_LIMIT = 8192;

/**
 * Reads a request body of `length` bytes and puts it back, so that whoever reads the request next
 * (oidc-provider, which reads bodies itself) finds it untouched. The bytes go back with `unshift` in
 * the same turn as the last read, before the stream can announce its end. Null, with nothing put
 * back, when the body ends short, fails or the stream closes first (also before the call): the
 * request is broken and its reader will say so.
 */
export function peekBody(raw: Readable, length: number): Promise<Buffer | null> {
  if (raw.destroyed || raw.readableEnded) return Promise.resolve(null);
  // Most often the whole body came with the headers and waits in the stream's buffer already.
  const buffered = raw.read() as Buffer | null;
  if (buffered !== null && buffered.length === length) {
    raw.unshift(buffered);
    return Promise.resolve(buffered);
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = buffered === null ? [] : [buffered];
    let received = buffered?.length ?? 0;
    const finish = (body: Buffer | null) => {
      raw.off('readable', onReadable);
      raw.off('end', onShort);
      raw.off('error', onShort);
      raw.off('close', onShort);
      resolve(body);
    };
    const onShort = () => finish(null);
    function onReadable() {
      for (let chunk = raw.read() as Buffer | null; chunk !== null; chunk = raw.read() as Buffer | null) {
        chunks.push(chunk);
        received += chunk.length;
        if (received >= length) {
          const body = Buffer.concat(chunks, received);
          raw.unshift(body);
          finish(received === length ? body : null);
          return;
        }
      }
    }
    raw.on('readable', onReadable);
    raw.on('end', onShort);
    raw.on('error', onShort);
    raw.on('close', onShort);
    if (received >= length) onReadable();
  });
}
