import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Html } from '../lib/html.ts';
import { ValidationError, validationError } from '../lib/validation.ts';
import { expectsJson } from './negotiation.ts';
import { formBody } from './request-context.ts';
import { type FormState, formState, pageErrors } from './views/forms.ts';

export function sendPage(reply: FastifyReply, page: Html, status = 200): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(page.value);
}

/**
 * Runs a form's validation. JSON clients get the error thrown (→ 422 JSON by the error handler);
 * browsers get the same form again, status 422, errors beside fields and their input kept.
 */
export async function validateForm<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  run: () => T,
  render: (state: FormState) => Html | Promise<Html>,
): Promise<{ ok: true; value: T } | { ok: false; reply: FastifyReply }> {
  try {
    return { ok: true, value: run() };
  } catch (error) {
    if (!(error instanceof ValidationError) || expectsJson(request)) throw error;
    return {
      ok: false,
      reply: sendPage(reply, await render(formState(formBody(request), pageErrors(error))), 422),
    };
  }
}

/**
 * A form refused after its rules passed (an address already taken, a dead reset token): JSON clients
 * get the error thrown (→ 422 JSON), browsers the same form again with it, status 422.
 */
export async function refuseForm(
  request: FastifyRequest,
  reply: FastifyReply,
  error: ValidationError,
  render: (state: FormState) => Html | Promise<Html>,
  /** How the page places the errors (pageErrors for a form's own rules); as they are by default. */
  place: (error: ValidationError) => ValidationError['errors'] = (e) => e.errors,
): Promise<FastifyReply> {
  if (expectsJson(request)) throw error;
  return sendPage(reply, await render(formState(formBody(request), place(error))), 422);
}

/** Laravel's "The email has already been taken." on the email field. */
export function emailTaken(t: FastifyRequest['t']): ValidationError {
  return validationError(
    { email: [t('validation.unique', { attribute: t('validation.attributes.email') })] },
    t,
  );
}
