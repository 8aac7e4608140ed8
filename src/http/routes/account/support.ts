import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PasswordCheck } from '../../../account/password-check.ts';
import type { Html } from '../../../lib/html.ts';
import { validationError } from '../../../lib/validation.ts';
import { expectsJson } from '../../negotiation.ts';
import { sendPage } from '../../pages.ts';
import { formBody } from '../../request-context.ts';
import { type FormState, formState } from '../../views/forms.ts';

/** The guards of every /user/* route: the web session (a guest gets 302 /login, JSON 401). */
export const ACCOUNT_GUARDS: readonly string[] = ['web'];

/**
 * A refused password check, answered like the login form answers one: 422 with `message` on the
 * password field, or 429 with auth.throttle and Retry-After once the login throttle is spent. JSON
 * clients get CONTRACT §2's body; browsers the form again (`render`), its password cleared.
 */
export async function refusePassword(
  request: FastifyRequest,
  reply: FastifyReply,
  check: Exclude<PasswordCheck, { status: 'ok' }>,
  fieldName: string,
  message: string,
  render: (state: FormState) => Html | Promise<Html>,
): Promise<FastifyReply> {
  const t = request.t;
  const throttled = check.status === 'throttled';
  const text = throttled ? t('auth.throttle', { seconds: check.retryAfterSeconds }) : message;
  const error = validationError({ [fieldName]: [text] }, t);
  if (throttled) reply.header('retry-after', String(check.retryAfterSeconds));
  const status = throttled ? 429 : 422;
  if (expectsJson(request)) return reply.code(status).send({ message: error.summary, errors: error.errors });
  return sendPage(reply, await render(formState(formBody(request), error.errors)), status);
}
