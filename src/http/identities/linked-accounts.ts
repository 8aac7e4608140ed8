import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseId } from '../../db/ids.ts';
import type { IdentitySummary } from '../../identities/identities.repository.ts';
import type { LinkResult } from '../../identities/linking.ts';
import type { UpstreamProvider } from '../../identities/providers/upstream-provider.ts';
import { validationError } from '../../lib/validation.ts';
import { NotFoundError } from '../errors.ts';
import { formRoute } from '../form-methods.ts';
import { expectsJson } from '../negotiation.ts';
import { auditContext } from '../request-context.ts';
import type { SignInFailure } from '../views/login-providers.ts';

/** Where the account area shows the linked accounts (http/views/account/sections/linked-accounts.ts). */
export const LINKED_ACCOUNTS_PATH = '/profile/security#linked-accounts';

/** docs/guides/login-providers.md's JSON shape of one linked identity. */
export function identityJson(identity: IdentitySummary, label: string) {
  return {
    id: identity.id,
    provider: identity.provider,
    label,
    email: identity.email,
    email_verified: identity.emailVerified,
    created_at: new Date(identity.createdAt).toISOString(),
    last_used_at: identity.lastUsedAt === null ? null : new Date(identity.lastUsedAt).toISOString(),
  };
}

/**
 * GET /user/linked-accounts and DELETE /user/linked-accounts/{id} (docs/guides/login-providers.md): the
 * web session; unlinking is refused (422) when the identity is the account's last way to sign in.
 */
export async function linkedAccountRoutes(app: FastifyInstance) {
  const { identities } = app.services;
  const signedIn = [app.requireAuth(['web'])];

  app.get('/user/linked-accounts', { preHandler: signedIn }, async (request) => {
    const linked = await identities.list(request.identity!.user.id);
    return linked.map((identity) => identityJson(identity, identities.labelOf(identity.provider)));
  });

  formRoute(app, 'DELETE', '/user/linked-accounts/:id', signedIn, async (request, reply) => {
    const id = parseId((request.params as { id?: unknown }).id);
    if (id === null) throw new NotFoundError();
    const user = request.identity!.user;
    const result = await identities.unlink(user, id, auditContext(request));
    if (result.status === 'not_found') throw new NotFoundError();
    const t = request.t;
    const provider = identities.labelOf(result.provider);
    if (result.status === 'last_way_in') {
      // The section offers no Unlink then (it says why); this answers a stale page or a script.
      const message = t('identities.status.last_way_in', { provider });
      if (!expectsJson(request)) return flashBack(request, reply, message);
      const error = validationError({ id: [message] }, t);
      return reply.code(422).send({ message: error.summary, errors: error.errors });
    }
    if (expectsJson(request)) return reply.code(204).send();
    return flashBack(request, reply, t('identities.status.unlinked', { provider }));
  });
}

/** After a link from the account page (or its failure): back to the linked accounts with what happened. */
export async function linkDone(
  request: FastifyRequest,
  reply: FastifyReply,
  provider: UpstreamProvider,
  result: LinkResult | SignInFailure,
  linked: boolean,
): Promise<FastifyReply> {
  const t = request.t;
  const app = request.server.services.config.appName;
  const known = ['linked', 'already_linked', 'linked_to_another_user', 'provider_taken'];
  const message = known.includes(result)
    ? t(`identities.status.${result}`, { provider: provider.label, app })
    : t(`identities.failure.${result}`, { provider: provider.label });
  request.log.info({ provider: provider.name, result, linked }, 'link from the account page');
  return flashBack(request, reply, message);
}

async function flashBack(request: FastifyRequest, reply: FastifyReply, message: string) {
  const session = await request.sessionOf('web').load();
  session.flash('status', message);
  return reply.redirect(LINKED_ACCOUNTS_PATH);
}
