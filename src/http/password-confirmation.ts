import type { FastifyReply, FastifyRequest } from 'fastify';
import { isPasswordConfirmed, PASSWORD_CONFIRMED_AT } from '../account/password-confirmation.ts';
import { PasswordConfirmationRequiredError } from './errors.ts';
import { sameSiteReferer } from './request-context.ts';

/** Where the confirmation form lives (docs/guides/account.md). */
export const CONFIRM_PASSWORD_PATH = '/user/confirm-password';

/**
 * THE preHandler of every password-confirmed route (export, two-factor and passkey management …):
 * name it after the web guard, `preHandler: [app.requireAuth(['web']), requirePasswordConfirmation]`.
 *
 * Without a confirmation younger than PASSWORD_TIMEOUT it throws: JSON clients get 423 "Password
 * confirmation required.", browsers go to the confirmation form and then back (plugins/errors.ts calls
 * redirectToConfirmation). Thrown, not answered here: a redirect that writes the session finishes in
 * onSend, after the route handler would already have started.
 */
export async function requirePasswordConfirmation(request: FastifyRequest, _reply: FastifyReply) {
  if (!(await passwordConfirmed(request))) throw new PasswordConfirmationRequiredError();
}

/**
 * The browser's way to the confirmation form: back afterwards to this URL for a GET, and for a form
 * submission to the same-site page that held the form (a POST cannot be replayed by a redirect, and
 * replaying it unseen would act without the person seeing what they confirmed).
 */
export async function redirectToConfirmation(request: FastifyRequest, reply: FastifyReply) {
  const back = request.method === 'GET' ? request.url : sameSiteReferer(request);
  // Named after the signed-in user: another user's login in this browser does not continue there.
  if (back !== null) request.intendedUrl('web').remember(reply, back, request.identity?.user.id ?? null);
  return reply.redirect(CONFIRM_PASSWORD_PATH);
}

/** Whether this request's web session holds a confirmation that is still valid. */
export async function passwordConfirmed(request: FastifyRequest): Promise<boolean> {
  const { clock, config } = request.server.services;
  const session = await request.sessionOf('web').load();
  return isPasswordConfirmed(session.get(PASSWORD_CONFIRMED_AT), clock.now(), config.passwordTimeoutSeconds);
}

/** Records a successful confirmation in the web session (only POST /user/confirm-password does). */
export async function markPasswordConfirmed(request: FastifyRequest): Promise<void> {
  const session = await request.sessionOf('web').load();
  session.put(PASSWORD_CONFIRMED_AT, request.server.services.clock.now());
}
