import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ReadUserinfo } from '../../oauth/userinfo.ts';
import { sendAsProvider } from './provider-headers.ts';

/** `Bearer <token>`, as the library splits the header: two parts, the scheme in any case. */
const BEARER = /^bearer ([^ ]+)$/i;

/**
 * The token of a plain userinfo request: GET, or POST without a body, with the access token in the
 * Authorization header and nothing else to read — no query string (a `scope` or `access_token`
 * there), no body, no Origin (CORS stays with the library and oauthCors), no DPoP. Anything else is
 * the library's to answer, including every malformed request.
 */
function plainBearer(request: FastifyRequest): string | null {
  const headers = request.headers;
  if (request.method !== 'GET' && request.method !== 'POST') return null;
  if (request.raw.url?.includes('?')) return null;
  if (headers.origin !== undefined || headers.dpop !== undefined) return null;
  if (request.method === 'POST') {
    const length = headers['content-length'];
    if (headers['content-type'] !== undefined || headers['transfer-encoding'] !== undefined) return null;
    if (length !== undefined && length !== '0') return null;
  }
  const match = BEARER.exec(headers.authorization ?? '');
  return match === null ? null : match[1]!;
}

/**
 * For `/oauth/userinfo`, before the hand-over to the library (provider-routes.ts): a plain request with a valid
 * JWT access token of ours is answered here (oauth/userinfo.ts says why and what is checked), with
 * the headers the library's answer carries (no-store, its CORS, provider-headers.ts). Everything else goes on
 * to the library, which answers it — errors included — as before.
 */
export function userinfoDirect(read: ReadUserinfo) {
  /** True when it answered; false: the library's turn. */
  return async function direct(request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
    const token = plainBearer(request);
    if (token === null) return false;
    const claims = await read(token);
    if (claims === null) return false;
    sendAsProvider(reply, claims);
    return true;
  };
}
