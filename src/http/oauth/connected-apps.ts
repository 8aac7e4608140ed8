import type { FastifyInstance } from 'fastify';
import { NotFoundError } from '../errors.ts';
import { formRoute } from '../form-methods.ts';
import { expectsJson } from '../negotiation.ts';
import { auditContext } from '../request-context.ts';

/** Where the account area shows the connected apps (http/views/account/sections/connected-apps.ts). */
export const CONNECTED_APPS_PATH = '/profile/tokens#connected-apps';

/** A client id as clients:create makes them; anything else names no client. */
const CLIENT_ID = /^[A-Za-z0-9_-]{1,100}$/;

/**
 * DELETE /user/connected-apps/{client_id} (docs/guides/oidc-provider.md "Connected apps"), also as a
 * form POST with `_method` (CSRF-checked like every form): the web session; 404 for a client the user
 * never allowed. Browser: back to the section with a status line; JSON: 204.
 */
export async function connectedAppRoutes(app: FastifyInstance) {
  const { oauth } = app.services;
  const signedIn = [app.requireAuth(['web'])];

  formRoute(app, 'DELETE', '/user/connected-apps/:clientId', signedIn, async (request, reply) => {
    const { clientId } = request.params as { clientId?: unknown };
    if (typeof clientId !== 'string' || !CLIENT_ID.test(clientId)) throw new NotFoundError();
    const user = request.identity!.user;
    const result = await oauth.consents.disconnect(user.id, clientId, auditContext(request));
    if (result === null) throw new NotFoundError();
    if (expectsJson(request)) return reply.code(204).send();
    const session = await request.sessionOf('web').load();
    session.flash('status', request.t('oauth.connected.disconnected', { client: result.name }));
    return reply.redirect(CONNECTED_APPS_PATH);
  });
}
