import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { UpstreamAttempt } from '../../identities/attempt.ts';
import type { UpstreamProfile } from '../../identities/profile.ts';
import type { UpstreamProvider } from '../../identities/providers/upstream-provider.ts';
import type { UpstreamFailure } from '../../identities/upstream-failure.ts';
import { NotFoundError, PasswordConfirmationRequiredError } from '../errors.ts';
import { completeLogin } from '../login/login-completion.ts';
import { sendPage } from '../pages.ts';
import { passwordConfirmed } from '../password-confirmation.ts';
import { resolveIdentity } from '../plugins/auth.ts';
import { auditContext } from '../request-context.ts';
import { requireVerifiedEmail } from '../verified-email.ts';
import { type SignInFailure, signInFailurePath } from '../views/login-providers.ts';
import { setAttemptCookie, takeAttemptCookie } from './attempt-cookie.ts';
import { linkDone } from './linked-accounts.ts';
import { continuePage } from './views/continue-page.ts';

/**
 * GET /auth/{provider} and GET /auth/{provider}/callback (docs/guides/login-providers.md): the browser
 * goes to the provider with state, nonce and PKCE S256 bound to it and to the provider (the sealed
 * attempt cookie), and comes back to the callback, whose answer passes the provider's checks and then
 * the linking rules (identities/sign-in.ts). A sign-in ends in completeLogin like every login (a fresh
 * session that keeps nothing of the one before, two-factor, the intended URL); any failure returns to
 * /login with its message and changes nothing. `?link=1`, signed in: the identity is linked to the
 * user instead (back to the account page).
 */
export async function signInRoutes(app: FastifyInstance) {
  const { identities, clock, config } = app.services;
  const requireWeb = app.requireAuth(['web']);

  const providerOf = (request: FastifyRequest): UpstreamProvider => {
    const name = (request.params as { provider?: unknown }).provider;
    const provider = typeof name === 'string' ? identities.providers.get(name) : undefined;
    if (provider === undefined) throw new NotFoundError();
    return provider;
  };

  /**
   * Linking is an account change: the web session, a verified address (the account page's rule), and
   * a fresh password confirmation when the user has a password (a session left open on a shared
   * computer must not be able to add a way into the account).
   */
  const linkingAllowed = async (request: FastifyRequest, reply: FastifyReply) => {
    providerOf(request);
    if ((request.query as Record<string, unknown>)['link'] !== '1') return;
    await requireWeb.call(app, request, reply);
    await requireVerifiedEmail(request, reply);
    if (reply.sent) return reply;
    const user = request.identity!.user;
    if ((await identities.hasPassword(user.id)) && !(await passwordConfirmed(request)))
      throw new PasswordConfirmationRequiredError();
  };

  app.get('/auth/:provider', { preHandler: linkingAllowed }, async (request, reply) => {
    const provider = providerOf(request);
    const query = request.query as Record<string, unknown>;
    const linkUserId = query['link'] === '1' ? request.identity!.user.id : null;
    const begun = await identities.begin(
      provider.name,
      { remember: query['remember'] === '1', linkUserId },
      clock.now(),
    );
    if (begun.status === 'failed')
      return failed(request, reply, provider, linkUserId !== null, begun.failure);
    setAttemptCookie(request, reply, begun.sealedAttempt);
    if (linkUserId === null) return reply.redirect(begun.url);
    // A link is reached through the password confirmation's form: see views/continue-page.ts.
    reply.header('refresh', `0;url=${begun.url}`);
    return sendPage(reply, continuePage(request, provider.label, begun.url));
  });

  app.get('/auth/:provider/callback', async (request, reply) => {
    const provider = providerOf(request);
    const sealed = takeAttemptCookie(request, reply);
    const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '';
    const finished = await identities.finish(provider.name, sealed, query, clock.now());
    if (finished.status === 'failed') {
      const linking = finished.attempt !== null && finished.attempt.linkUserId !== null;
      return failed(request, reply, provider, linking, finished.failure);
    }
    const { attempt, profile } = finished;
    if (attempt.linkUserId !== null) return link(request, reply, provider, attempt, profile);

    const result = await identities.signIn(profile, request.locale, auditContext(request));
    if (result.status !== 'signed_in') return reply.redirect(signInFailurePath(result.status, provider.name));
    return completeLogin(request, reply, {
      guard: 'web',
      user: result.user,
      remember: attempt.remember,
      fallback: config.loginRedirect,
      proof: 'provider',
      provider: provider.name,
      twoFactorOwed: result.twoFactorOwed,
    });
  });

  /** The account page's link: only for the user who started it, still signed in in this browser. */
  async function link(
    request: FastifyRequest,
    reply: FastifyReply,
    provider: UpstreamProvider,
    attempt: UpstreamAttempt,
    profile: UpstreamProfile,
  ) {
    const identity = await resolveIdentity(request, ['web']);
    if (identity === null || identity.user.id !== attempt.linkUserId) {
      request.log.warn({ provider: provider.name }, 'link refused: the user who started it is not signed in');
      return reply.redirect(signInFailurePath('failed', provider.name));
    }
    const result = await identities.link(identity.user, profile, auditContext(request));
    return linkDone(request, reply, provider, result, result === 'linked');
  }

  /** A provider's failure, logged (never a token), and told where the person started. */
  async function failed(
    request: FastifyRequest,
    reply: FastifyReply,
    provider: UpstreamProvider,
    linking: boolean,
    failure: UpstreamFailure,
  ) {
    request.log.warn(
      { provider: provider.name, reason: failure.reason, detail: failure.detail },
      'sign-in with a login provider failed',
    );
    const reason: SignInFailure = failure.reason;
    if (linking && (await resolveIdentity(request, ['web'])) !== null)
      return linkDone(request, reply, provider, reason, false);
    return reply.redirect(signInFailurePath(reason, provider.name));
  }
}
