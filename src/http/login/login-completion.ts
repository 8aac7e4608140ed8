import type { FastifyReply, FastifyRequest } from 'fastify';
import { DEVICE_COOKIE, DEVICE_COOKIE_MAX_AGE_SECONDS } from '../../auth/login/device-cookies.ts';
import { LOGIN_METHOD_KEY, type LoginMethod, type LoginProof } from '../../auth/login/login-method.ts';
import { newPendingLogin, PENDING_LOGIN_KEY } from '../../two-factor/pending-login.ts';
import type { User } from '../../users/user.ts';
import { expectsJson } from '../negotiation.ts';
import { safeLocalPath } from '../request-context.ts';

export interface CompletedLogin {
  /** The session guard the user signs into. */
  readonly guard: 'web' | 'admin';
  readonly user: User;
  /** The remember-me box as ticked on the login form (ignored by the admin guard). */
  readonly remember: boolean;
  /** Where the browser goes when no intended URL was remembered. */
  readonly fallback: string;
  /**
   * What proved the user at the first step. A passkey is possession of a device-bound key plus
   * (usually) the device's own user verification, so it already satisfies two-factor
   * (docs/guides/passkeys.md): a two-factor challenge applies to `password` and `provider` logins
   * (docs/guides/login-providers.md: two-factor still applies after a provider), and to a `passkey` one
   * only when the device did not verify the person (see twoFactorOwed).
   */
  readonly proof: LoginProof;
  /** The LOGIN_PROVIDERS name of a `provider` proof. */
  readonly provider?: string;
  /** The two-factor challenge was passed (two-factor-challenge.ts) after `proof`. */
  readonly secondFactor?: boolean;
  /**
   * The user has two-factor on and the proof is a single factor: a `password` (auth/login.ts says so),
   * a `provider` sign-in, or a `passkey` whose authenticator did not verify the person (no PIN or
   * biometric: possession only, passkeys/authentication.ts). The login then waits for the challenge
   * instead of completing.
   */
  readonly twoFactorOwed?: boolean;
  /** A status line for the page the login lands on (how many recovery codes are left). */
  readonly notice?: string;
  /** A `passkey` proof's key and user verification (passkeys/authentication.ts): the provider's amr. */
  readonly passkey?: LoginMethod['passkey'];
}

/** Where each guard's two-factor challenge lives (docs/guides/two-factor.md). */
export const CHALLENGE_PATHS = {
  web: '/two-factor-challenge',
  admin: '/admin/two-factor-challenge',
} as const;

/**
 * The one place a browser login ends, whatever proved the user (password form, two-factor challenge,
 * passkey, another provider): a fresh session id (fixation), then the intended URL or the fallback. Every later step of
 * a login (two-factor, device cookie, forward-auth redirect target) hooks in here, so no door can skip
 * it.
 */
export async function completeLogin(
  request: FastifyRequest,
  reply: FastifyReply,
  login: CompletedLogin,
): Promise<FastifyReply> {
  const session = await request.sessionOf(login.guard).load();
  const now = request.server.services.clock.now();
  const first = {
    proof: login.proof,
    ...(login.provider === undefined ? {} : { provider: login.provider }),
    ...(login.passkey === undefined ? {} : { passkey: login.passkey }),
  };
  if (login.secondFactor !== true && login.twoFactorOwed) {
    // Not logged in yet: the session stays a guest's (no user id, so no guard lets it in) and holds
    // the pending login (5 minutes, this browser only, the remember flag and the first proof kept); the
    // intended URL stays where it is until the challenge is passed.
    await session.startOver();
    session.put(PENDING_LOGIN_KEY, newPendingLogin(login.user.id, login.remember, now, first));
    if (expectsJson(request)) return reply.code(200).send({ two_factor: true });
    return reply.redirect(CHALLENGE_PATHS[login.guard]);
  }
  session.pull(PENDING_LOGIN_KEY);
  const intended = request.intendedUrl(login.guard).take(reply, login.user.id);
  await session.login(login.user.id, login.remember);
  // How this session's user signed in, for the OpenID provider's `amr` (auth/login/login-method.ts).
  const method: LoginMethod = { ...first, secondFactor: login.secondFactor === true, at: now };
  session.put(LOGIN_METHOD_KEY, method);
  // After the login, which starts the session clean; before the answer, which writes it.
  if (login.notice !== undefined) {
    if (login.guard === 'admin') session.flash('admin', { kind: 'ok', text: login.notice });
    else session.flash('status', login.notice);
  }
  rememberDevice(request, reply, login.user.id);
  if (expectsJson(request)) return reply.code(204).send();
  return reply.redirect(destination(request, login, intended));
}

/**
 * The device cookie (docs/security.md): this browser has now logged into this account, so a later spray
 * against the account from other addresses cannot lock it out (auth/device-cookies.ts). Set on every
 * completed browser login, web and admin alike, keeping the browser's other accounts.
 */
function rememberDevice(request: FastifyRequest, reply: FastifyReply, userId: number): void {
  const { auth, config } = request.server.services;
  reply.setCookie(DEVICE_COOKIE, auth.deviceCookie(request.cookies[DEVICE_COOKIE], userId), {
    path: '/',
    maxAge: DEVICE_COOKIE_MAX_AGE_SECONDS,
    httpOnly: true,
    sameSite: 'lax',
    secure: config.secureCookies,
  });
}

/**
 * Where the browser goes: the intended URL if it is a path of this site, or — for the web guard only —
 * an absolute URL that /login?redirect= stored (forward auth, docs/integrations/forward-auth.md), checked again here against
 * FORWARD_AUTH_DOMAINS as configured now; else the fallback. Never anywhere else (no open redirect).
 */
function destination(request: FastifyRequest, login: CompletedLogin, intended: unknown): string {
  const local = safeLocalPath(intended, '');
  if (local !== '') return local;
  if (login.guard !== 'web') return login.fallback;
  return request.server.services.forwardAuth.redirectTarget(intended) ?? login.fallback;
}
