import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { validationError } from '../../lib/validation.ts';
import { clientJson } from '../../oauth/client-json.ts';
import type { OauthClient } from '../../oauth/clients.ts';
import { NotFoundError } from '../errors.ts';
import { expectsJson } from '../negotiation.ts';
import { refuseForm, sendPage } from '../pages.ts';
import { auditContext, formBody } from '../request-context.ts';
import { type Flash, isFlash } from '../views/admin/components.ts';
import type { FormState } from '../views/forms.ts';
import { clientChanges, clientInput, problemErrors } from './panel-client-input.ts';
import { newClientPage } from './views/panel-client-form.ts';
import { clientPage, clientsPage, type ShownSecret } from './views/panel-clients.ts';

/** A client id as registration makes them; anything else names no client (404, no query). */
const CLIENT_ID = /^[A-Za-z0-9_-]{1,100}$/;
const SECRET_FLASH = 'client_secret';

/**
 * The panel's OpenID Connect clients (docs/guides/admin-panel.md "OpenID Connect clients"): list,
 * register, show, edit the name and URIs, rotate the secret, delete — the use cases `clients:*` runs
 * (services.oauth.clients), behind the admin guard and its CSRF token, each change audited there. A
 * new secret is shown once, on the client's page right after (carried there in the session's flash).
 */
export async function clientPanelRoutes(app: FastifyInstance) {
  const { oauth } = app.services;
  const preHandler = app.requireAuth(['admin']);
  const csrf = (request: FastifyRequest) => request.sessionOf('admin').csrfToken();

  async function target(request: FastifyRequest): Promise<OauthClient> {
    const { clientId } = request.params as { clientId?: unknown };
    const client =
      typeof clientId === 'string' && CLIENT_ID.test(clientId) ? await oauth.clients.find(clientId) : null;
    if (client === null) throw new NotFoundError();
    return client;
  }

  const showPage = (request: FastifyRequest, client: OauthClient, edit: FormState = {}) => {
    const session = request.sessionOf('admin');
    const shown = session.flashed(SECRET_FLASH) as ShownSecret | undefined;
    const flash = session.flashed('admin');
    return clientPage(request, {
      client,
      csrf: csrf(request),
      flash: isFlash(flash) ? flash : null,
      secret: shown?.clientId === client.clientId ? shown.secret : null,
      edit,
    });
  };

  /** Back to a client's page with a message (and the secret, once); JSON: 200 with both. */
  function done(
    request: FastifyRequest,
    reply: FastifyReply,
    location: string,
    flash: Flash,
    secret?: ShownSecret,
  ) {
    if (expectsJson(request)) {
      return reply.send({ message: flash.text, ...(secret ? { client_secret: secret.secret } : {}) });
    }
    const session = request.sessionOf('admin');
    session.flash('admin', flash);
    if (secret) session.flash(SECRET_FLASH, secret);
    return reply.redirect(location);
  }

  app.get('/admin/clients', { preHandler }, async (request, reply) => {
    const flash = request.sessionOf('admin').flashed('admin');
    return sendPage(reply, clientsPage(request, await oauth.clients.list(), isFlash(flash) ? flash : null));
  });

  app.get('/admin/clients/new', { preHandler }, async (request, reply) =>
    sendPage(reply, newClientPage(request, {}, csrf(request))),
  );

  app.post('/admin/clients', { preHandler }, async (request, reply) => {
    const t = request.t;
    const result = await oauth.clients.create(clientInput(formBody(request)), auditContext(request));
    if (!result.ok) {
      const error = validationError(problemErrors(t, result.problems), t);
      return refuseForm(request, reply, error, (state) => newClientPage(request, state, csrf(request)));
    }
    const { client, secret } = result;
    if (expectsJson(request)) return reply.code(201).send(clientJson(client, secret));
    const text = t('oauth.panel.created_flash', { client: client.name });
    const shown = secret === null ? undefined : { clientId: client.clientId, secret };
    return done(request, reply, `/admin/clients/${client.clientId}`, { kind: 'ok', text }, shown);
  });

  app.get('/admin/clients/:clientId', { preHandler }, async (request, reply) => {
    const client = await target(request);
    if (expectsJson(request)) return reply.send(clientJson(client));
    return sendPage(reply, showPage(request, client));
  });

  app.post('/admin/clients/:clientId', { preHandler }, async (request, reply) => {
    const client = await target(request);
    const t = request.t;
    const result = await oauth.clients.update(
      client.clientId,
      clientChanges(formBody(request)),
      auditContext(request),
    );
    if (!result.found) throw new NotFoundError();
    if (!result.ok) {
      const error = validationError(problemErrors(t, result.problems), t);
      return refuseForm(request, reply, error, (state) => showPage(request, client, state));
    }
    const text = t('oauth.panel.saved_flash', { client: result.client.name });
    return done(request, reply, `/admin/clients/${client.clientId}`, { kind: 'ok', text });
  });

  app.post('/admin/clients/:clientId/rotate-secret', { preHandler }, async (request, reply) => {
    const client = await target(request);
    const t = request.t;
    const location = `/admin/clients/${client.clientId}`;
    const result = await oauth.clients.rotateSecret(client.clientId, auditContext(request));
    if (result === null) throw new NotFoundError();
    if (result === 'public') {
      const text = t('oauth.panel.public_no_secret', { client: client.name });
      if (expectsJson(request)) return reply.code(409).send({ message: text });
      return done(request, reply, location, { kind: 'error', text });
    }
    const text = t('oauth.panel.rotated_flash', { client: client.name });
    return done(
      request,
      reply,
      location,
      { kind: 'ok', text },
      { clientId: client.clientId, secret: result.secret },
    );
  });

  app.post('/admin/clients/:clientId/delete', { preHandler }, async (request, reply) => {
    const client = await target(request);
    if (!(await oauth.clients.delete(client.clientId, auditContext(request)))) throw new NotFoundError();
    const text = request.t('oauth.panel.deleted_flash', { client: client.name });
    return done(request, reply, '/admin/clients', { kind: 'ok', text });
  });
}
