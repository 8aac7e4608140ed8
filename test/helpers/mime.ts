/**
 * A small MIME reader for what our tests receive over SMTP (mailparser is not installable here):
 * header unfolding, RFC 2047 encoded words, nested multiparts, quoted-printable and base64 bodies.
 * It works on bytes held in a latin1 string (one char per byte) and decodes text parts as their charset.
 */

export interface MimePart {
  readonly headers: ReadonlyMap<string, readonly string[]>;
  readonly contentType: string;
  readonly params: Readonly<Record<string, string>>;
  /** Decoded body of a leaf part; empty for multiparts. */
  readonly body: string;
  readonly parts: readonly MimePart[];
}

export function parseMime(raw: Buffer | string): MimePart {
  const bytes =
    typeof raw === 'string' ? Buffer.from(raw, 'utf8').toString('latin1') : raw.toString('latin1');
  return parsePart(bytes);
}

/** Every leaf part, depth first. */
export function leaves(part: MimePart): MimePart[] {
  return part.parts.length === 0 ? [part] : part.parts.flatMap(leaves);
}

function parsePart(source: string): MimePart {
  const match = /\r?\n\r?\n/.exec(source);
  const head = match ? source.slice(0, match.index) : source;
  const body = match ? source.slice(match.index + match[0].length) : '';
  const headers = parseHeaders(head);
  const [contentType, params] = parseContentType(headers.get('content-type')?.[0] ?? 'text/plain');
  if (contentType.startsWith('multipart/') && params['boundary']) {
    return { headers, contentType, params, body: '', parts: splitMultipart(body, params['boundary']) };
  }
  const encoding = (headers.get('content-transfer-encoding')?.[0] ?? '7bit').trim().toLowerCase();
  const decoded = decodeBody(body, encoding);
  return { headers, contentType, params, body: toText(decoded, params['charset']), parts: [] };
}

function parseHeaders(head: string): Map<string, string[]> {
  const headers = new Map<string, string[]>();
  // Unfolding (RFC 5322 §2.2.3): a line starting with white space continues the previous one.
  const unfolded = head.replace(/\r?\n(?=[ \t])/g, '');
  for (const line of unfolded.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = decodeWords(Buffer.from(line.slice(colon + 1).trim(), 'latin1').toString('utf8'));
    headers.set(name, [...(headers.get(name) ?? []), value]);
  }
  return headers;
}

/** RFC 2047 encoded words; white space between two adjacent encoded words is dropped. */
export function decodeWords(value: string): string {
  return value
    .replace(/(=\?[^?]+\?[QqBb]\?[^?]*\?=)\s+(?==\?)/g, '$1')
    .replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_all, charset: string, kind: string, text: string) => {
      const bytes =
        kind.toUpperCase() === 'B'
          ? Buffer.from(text, 'base64')
          : Buffer.from(
              text
                .replace(/_/g, ' ')
                .replace(/=([0-9A-Fa-f]{2})/g, (_m, hex: string) =>
                  String.fromCharCode(Number.parseInt(hex, 16)),
                ),
              'latin1',
            );
      return toText(bytes, charset);
    });
}

function parseContentType(value: string): [string, Record<string, string>] {
  const [type = 'text/plain', ...rest] = value.split(';');
  const params: Record<string, string> = {};
  for (const param of rest) {
    const eq = param.indexOf('=');
    if (eq < 0) continue;
    params[param.slice(0, eq).trim().toLowerCase()] = param
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1');
  }
  return [type.trim().toLowerCase(), params];
}

function splitMultipart(body: string, boundary: string): MimePart[] {
  const parts: MimePart[] = [];
  const lines = body.split(/\r?\n/);
  let current: string[] | null = null;
  for (const line of lines) {
    if (line === `--${boundary}--`) break;
    if (line === `--${boundary}`) {
      if (current) parts.push(parsePart(current.join('\r\n')));
      current = [];
      continue;
    }
    current?.push(line);
  }
  if (current) parts.push(parsePart(current.join('\r\n')));
  return parts;
}

function decodeBody(body: string, encoding: string): Buffer {
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64');
  if (encoding === 'quoted-printable') {
    const text = body
      .replace(/[ \t]+(?=\r?\n)/g, '')
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
    return Buffer.from(text, 'latin1');
  }
  return Buffer.from(body, 'latin1');
}

function toText(bytes: Buffer, charset = 'utf-8'): string {
  const name = charset.toLowerCase();
  if (name === 'iso-8859-1' || name === 'latin1' || name === 'us-ascii') return bytes.toString('latin1');
  return bytes.toString('utf8');
}
