import { parse } from 'node:querystring';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ClientCredentials, ReadIntrospection } from '../../oauth/introspection.ts';
import { PEEK_LIMIT, peekBody } from './form-peek.ts';
import { sendAsProvider } from './provider-headers.ts';

const BASIC = /^basic ([A-Za-z0-9+/]+={0,2})$/i;
const FORM = 'application/x-www-form-urlencoded';
/** Printable ASCII without `%` and `+`, the characters RFC 6749 §2.3.1's form-encoding would change. */
const PLAIN_CREDENTIALS = /^[\x20-\x24\x26-\x2a\x2c-\x7e]+$/;
/** Other ways to authenticate a client or bind a token: any of them and the library decides. */
const OTHER_MECHANISMS = ['dpop', 'oauth-client-attestation', 'oauth-client-attestation-pop'] as const;

/**
 * client_secret_basic credentials in canonical base64 of printable ASCII that needs no decoding (no
 * `%`, no `+`: what the CLI and the panel issue); anything else is left to the library, which checks
 * the base64 strictly and decodes the rest as RFC 6749 §2.3.1 says (Node's decoder is lenient: a
 * wrongly padded value the library refuses would decode here).
 */
function basicCredentials(header: string | undefined): ClientCredentials | null {
  const match = BASIC.exec(header ?? '');
  if (match === null) return null;
  const bytes = Buffer.from(match[1]!, 'base64');
  if (bytes.toString('base64') !== match[1]) return null;
  const decoded = bytes.toString('latin1');
  const colon = decoded.indexOf(':');
  if (colon < 1 || !PLAIN_CREDENTIALS.test(decoded)) return null;
  const secret = decoded.slice(colon + 1);
  return secret === '' ? null : { clientId: decoded.slice(0, colon), secret };
}

/** The declared length of a small form body without a query string; null for anything else. */
function plainFormLength(request: FastifyRequest): number | null {
  const headers = request.headers;
  if (request.method !== 'POST' || request.raw.url?.includes('?')) return null;
  if (headers['content-type'] !== FORM || headers['transfer-encoding'] !== undefined) return null;
  if (headers.origin !== undefined || OTHER_MECHANISMS.some((name) => headers[name] !== undefined))
    return null;
  const length = Number(headers['content-length']);
  return Number.isInteger(length) && length > 0 && length <= PEEK_LIMIT ? length : null;
}

/** `token=…` with at most `token_type_hint=access_token`, each once; null for any other form. */
function accessTokenParam(body: Buffer): string | null {
  // node:querystring, as the library parses it; a name given twice comes back as an array.
  const { token, token_type_hint: hint, ...rest } = parse(body.toString('utf8'));
  if (typeof token !== 'string' || token === '' || Object.keys(rest).length > 0) return null;
  return hint === undefined || hint === 'access_token' ? token : null;
}

/**
 * For `/oauth/introspect`, before the hand-over to the library (provider-routes.ts): a resource
 * server or client introspecting a JWT access token with client_secret_basic is answered here
 * (oauth/introspection.ts says why and what is checked), with the headers the library's answer
 * carries. The body is read and put back (form-peek.ts), so whatever is not answered here reaches
 * the library as it came — every error, every refresh token, every other form of authentication.
 */
export function introspectionDirect(read: ReadIntrospection) {
  /** True when it answered; false: the library's turn. */
  return async function direct(request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
    const length = plainFormLength(request);
    if (length === null) return false;
    const credentials = basicCredentials(request.headers.authorization);
    if (credentials === null) return false;
    const body = await peekBody(request.raw, length);
    if (body === null && request.raw.destroyed) {
      // The client went away (or the request timed out, answered 408): nobody is left to answer.
      reply.hijack();
      return true;
    }
    const token = body === null ? null : accessTokenParam(body);
    if (token === null) return false;
    const answer = await read(credentials, token);
    if (answer === null) return false;
    // The body put back is not needed any more.
    request.raw.resume();
    sendAsProvider(reply, answer);
    return true;
  };
}
