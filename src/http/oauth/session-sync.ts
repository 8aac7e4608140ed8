import type { KoaContextWithOIDC } from 'oidc-provider';
import { LOGIN_METHOD_KEY, storedLoginMethod } from '../../auth/login/login-method.ts';
import type { GatehouseSession } from '../../oauth/provider-sessions.ts';
import { carriedRequest } from './provider-request.ts';

type Next = () => Promise<void>;

/** The Gatehouse session key each provider request follows, as the session sync found it. */
const followed = new WeakMap<object, string | null>();

/**
 * The key of the Gatehouse session the provider request behind `raw` follows (null for a guest),
 * for the storage adapter to record beside the provider session it saves.
 */
export function followedSession(raw: object | undefined): string | null {
  return raw === undefined ? null : (followed.get(raw) ?? null);
}

/** The provider's routes that read its session cookie: authorization, logout, the device pages. */
const FOLLOWING = /^\/(oauth\/(authorize|logout)|device)(\/|$)/;

/**
 * Before the library reads its session cookie, the session it names is made to follow this browser's
 * Gatehouse session (oauth/provider-sessions.ts): the cookie the request carries is replaced by the one
 * the library must see, and the library sends that one back to the browser as it always does. The
 * Gatehouse session is only read (peek): a remembered login is restored by the interaction page, a
 * Fastify route, not here, where our cookies could not be written.
 */
export function sessionSync(
  follow: (presentedId: string | null, gatehouse: GatehouseSession | null) => Promise<string | null>,
  cookieName: string,
) {
  return async function followGatehouse(ctx: KoaContextWithOIDC, next: Next): Promise<void> {
    const request = carriedRequest(ctx.req);
    if (request === undefined || !FOLLOWING.test(ctx.path)) return next();
    const web = await request.sessionOf('web').peek();
    const gatehouse =
      web.userId !== null && web.key !== undefined
        ? { key: web.key, userId: web.userId, signIn: storedLoginMethod(web.get?.(LOGIN_METHOD_KEY)) }
        : null;
    followed.set(ctx.req, gatehouse?.key ?? null);
    const presented = ctx.cookies.get(cookieName, { signed: true }) ?? null;
    const id = await follow(presented, gatehouse);
    if (id !== presented) presentCookie(ctx, cookieName, id);
    return next();
  };
}

/** Rewrites the request's Cookie header so that the library reads `id` (signed) as its session. */
function presentCookie(ctx: KoaContextWithOIDC, name: string, id: string | null): void {
  const kept = (ctx.req.headers.cookie ?? '')
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part !== '' && !part.startsWith(`${name}=`) && !part.startsWith(`${name}.sig=`));
  if (id !== null) {
    const keys = (ctx.cookies as unknown as { keys: { sign(data: string): string } }).keys;
    kept.push(`${name}=${id}`, `${name}.sig=${keys.sign(`${name}=${id}`)}`);
  }
  ctx.req.headers.cookie = kept.join('; ');
}
