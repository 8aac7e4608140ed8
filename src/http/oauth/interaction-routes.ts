import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { decodeJwt } from 'jose';
import type { Interaction, default as Provider } from 'oidc-provider';
import { PASSWORD_CONFIRMED_AT } from '../../account/password-confirmation.ts';
import { authenticationMethods, LOGIN_METHOD_KEY, storedLoginMethod } from '../../auth/login/login-method.ts';
import type { ProviderHost } from '../../oauth/provider-host.ts';
import type { User } from '../../users/user.ts';
import { sendPage } from '../pages.ts';
import { redirectToConfirmation } from '../password-confirmation.ts';
import { resolveIdentity } from '../plugins/auth.ts';
import { auditContext, formBody } from '../request-context.ts';
import { formTarget } from './provider-headers.ts';
import { consentPage } from './views/consent.ts';
import { continuePage } from './views/continue.ts';
import { providerErrorPage } from './views/provider-error.ts';

/**
 * Our side of the provider's interactions (docs/guides/oidc-provider.md "Signing in"): the library
 * sends a browser to /oauth/interaction/<uid> when it needs a login or a consent; we answer with
 * Gatehouse's own pages — the normal /login (two-factor, passkeys, throttles, remember-me), the password
 * confirmation when the client asked for a fresh login, the consent screen — and hand the result back.
 */
export function interactionRoutes(host: ProviderHost) {
  return async function routes(app: FastifyInstance) {
    const { oauth, clock } = app.services;

    app.get<{ Params: { uid: string } }>('/oauth/interaction/:uid', async (request, reply) => {
      const { provider } = await host.current();
      const interaction = await interactionOf(provider, request, reply);
      if (interaction === null) return expired(request, reply);
      const identity = await resolveIdentity(request, ['web']);
      if (identity === null) return request.redirectToLogin(reply, 'web');
      const user = identity.user;
      if (interaction.prompt.name === 'login') {
        if (hintsSomeoneElse(interaction, user)) {
          return finish(provider, request, reply, {
            error: 'login_required',
            error_description: 'id_token_hint names another End-User than the one signed in',
          });
        }
        const signIn = await freshSignIn(request, interaction, clock.now());
        if (signIn === 'stale') return redirectToConfirmation(request, reply);
        const login = { accountId: String(user.id), remember: true, ...signIn };
        return finish(provider, request, reply, { login });
      }
      if (interaction.prompt.name !== 'consent' || !sameAccount(interaction, user)) {
        return refuse(request, reply, 'interaction_required');
      }
      const client = await provider.Client.find(String(interaction.params['client_id']));
      if (client === undefined) return refuse(request, reply, 'invalid_client');
      if (client['gatehouse_trusted'] === true) {
        const grantId = await oauth.allow(provider, interaction, user.id, auditContext(request));
        return finish(provider, request, reply, { consent: { grantId } });
      }
      return sendPage(
        reply,
        consentPage(request, {
          uid: interaction.uid,
          clientName: client.clientName ?? client.clientId,
          returnsTo: returnTarget(interaction.params['redirect_uri']),
          scopes: String(interaction.params['scope'] ?? '')
            .split(' ')
            .filter((scope) => oauth.scopes.all.has(scope)),
          user: { name: user.name, email: user.email },
          csrfToken: request.sessionOf('web').csrfToken(),
        }),
      );
    });

    // The consent form: Allow or Deny. Behind the web guard and the CSRF check like every form.
    app.post<{ Params: { uid: string } }>(
      '/oauth/interaction/:uid',
      { preHandler: app.requireAuth(['web']) },
      async (request, reply) => {
        const { provider } = await host.current();
        const interaction = await interactionOf(provider, request, reply);
        if (interaction === null) return expired(request, reply);
        const user = request.identity!.user;
        if (interaction.prompt.name !== 'consent' || !sameAccount(interaction, user)) {
          return refuse(request, reply, 'interaction_required');
        }
        if (formBody(request)['decision'] !== 'allow') {
          return finish(provider, request, reply, {
            error: 'access_denied',
            error_description: 'the person declined the consent',
          });
        }
        const grantId = await oauth.allow(provider, interaction, user.id, auditContext(request));
        return finish(provider, request, reply, { consent: { grantId } });
      },
    );
  };
}

/** The interaction this browser is in, if its cookie names the one in the URL and it is still alive. */
async function interactionOf(
  provider: Provider,
  request: FastifyRequest<{ Params: { uid: string } }>,
  reply: FastifyReply,
): Promise<Interaction | null> {
  try {
    const interaction = await provider.interactionDetails(request.raw, reply.raw);
    if (interaction.uid !== request.params.uid) return null;
    // The client's ui_locales chooses the language of our pages for this interaction (the person's
    // own ?lang= choice still wins: plugins/i18n.ts, docs/guides/oidc-provider.md "Signing in").
    const uiLocales = interaction.params['ui_locales'];
    if (typeof uiLocales === 'string') request.preferLocales(uiLocales);
    return interaction;
  } catch {
    // SessionNotFound: no cookie, expired, or already finished.
    return null;
  }
}

/**
 * When the client asked for a fresh login (`prompt=login`, or `max_age` passed), the person must have
 * proved themselves since the interaction began, or within max_age: by signing in, or by confirming
 * their password (the account's password confirmation, which comes back here). The latest proof, in the
 * library's terms; 'stale' when none is fresh enough.
 */
async function freshSignIn(request: FastifyRequest, interaction: Interaction, now: number) {
  const session = await request.sessionOf('web').load();
  const method = storedLoginMethod(session.get(LOGIN_METHOD_KEY));
  const confirmedAt = session.get(PASSWORD_CONFIRMED_AT);
  const proofs = [
    ...(method ? [{ at: method.at, amr: authenticationMethods(method) }] : []),
    ...(typeof confirmedAt === 'number' ? [{ at: confirmedAt, amr: ['pwd'] }] : []),
  ].sort((a, b) => b.at - a.at);
  const latest = proofs[0];
  const reasons = interaction.prompt.reasons;
  const maxAge = Number(interaction.params['max_age']);
  const since = [
    reasons.includes('login_prompt') ? (interaction.iat ?? 0) * 1000 : null,
    reasons.includes('max_age') && Number.isFinite(maxAge) ? now - maxAge * 1000 : null,
  ].filter((value): value is number => value !== null);
  if (since.length > 0 && (latest === undefined || latest.at < Math.max(...since))) return 'stale' as const;
  return latest === undefined
    ? {}
    : { ts: Math.floor(latest.at / 1000), ...(latest.amr.length ? { amr: latest.amr } : {}) };
}

/**
 * The client sent `id_token_hint` for someone other than the person signed in here. OpenID Connect Core
 * §3.1.2.1 allows two answers: sign in the hinted person, or `login_required`. We answer
 * login_required (docs/guides/oidc-provider.md "Signing in"): a browser holds one Gatehouse session,
 * so signing in the hinted person would first sign out the one who is here, on a client's word, and
 * the client can simply ask again without the hint. Left to the library, the login we hand back for
 * the person here would end in a code for them, whoever the client expected. The hint itself was
 * verified by the library when the request came in (its signature, and that it was issued to this
 * client); the interaction keeps it server-side, so reading its `sub` here needs no second check.
 * Subjects are public (the user's id): the configuration sets no pairwise subject type.
 */
function hintsSomeoneElse(interaction: Interaction, user: User): boolean {
  const hint = interaction.params['id_token_hint'];
  if (typeof hint !== 'string') return false;
  return decodeJwt(hint).sub !== String(user.id);
}

/** The interaction belongs to whoever is signed in (a consent is never given for someone else). */
function sameAccount(interaction: Interaction, user: User): boolean {
  const accountId = interaction.session?.accountId;
  return accountId === undefined || accountId === String(user.id);
}

/** Hands the result to the library and moves on to it (continue.ts says why not by redirect). */
async function finish(
  provider: Provider,
  request: FastifyRequest,
  reply: FastifyReply,
  result: Parameters<Provider['interactionResult']>[2],
) {
  const target = await provider.interactionResult(request.raw, reply.raw, result);
  reply.header('refresh', `0;url=${target}`);
  return sendPage(reply, continuePage(request, target));
}

function returnTarget(redirectUri: unknown): string {
  const target = formTarget(redirectUri);
  return target === null ? '' : target.replace(/^https?:\/\//, '');
}

function expired(request: FastifyRequest, reply: FastifyReply) {
  return refuse(request, reply, 'interaction_expired');
}

function refuse(request: FastifyRequest, reply: FastifyReply, error: string) {
  const description = request.t(`oauth.interaction.${error}`);
  return sendPage(reply, providerErrorPage(request, { status: 400, error, description }), 400);
}
