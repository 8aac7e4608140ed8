import type { FastifyReply, FastifyRequest } from 'fastify';
import { parseId } from '../../../db/ids.ts';
import { NotFoundError } from '../../errors.ts';
import { expectsJson } from '../../negotiation.ts';
import { formBody, passwordCheckContext } from '../../request-context.ts';
import { type Flash, isFlash } from '../../views/admin/components.ts';

export function takeFlash(request: FastifyRequest): Flash | null {
  const flash = request.sessionOf('admin').flashed('admin');
  return isFlash(flash) ? flash : null;
}

/**
 * Ends a panel action (POST → redirect → GET): browsers go back to `location` with a status message;
 * JSON clients get 200 {"message"} on success, or `errorStatus` with the message when refused.
 */
export function finishAction(
  request: FastifyRequest,
  reply: FastifyReply,
  location: string,
  flash: Flash,
  errorStatus = 403,
): FastifyReply {
  if (expectsJson(request)) {
    return reply.code(flash.kind === 'ok' ? 200 : errorStatus).send({ message: flash.text });
  }
  request.sessionOf('admin').flash('admin', flash);
  return reply.redirect(location);
}

/**
 * A destructive panel action asks the acting admin's own password, now: a panel left open is not
 * enough. It is a password check like any other (account/password-check.ts): counted toward the login
 * throttles, audited when wrong. Null when confirmed; otherwise the refusal, answered (422, or 429
 * with Retry-After), back on `location`.
 */
export async function refuseWithoutAdminPassword(
  request: FastifyRequest,
  reply: FastifyReply,
  location: string,
): Promise<FastifyReply | null> {
  const t = request.t;
  const refuse = (text: string, status: number) =>
    finishAction(request, reply, location, { kind: 'error', text }, status);
  const password = formBody(request)['password'];
  // Malformed input is no attempt: refused without counting.
  if (typeof password !== 'string' || password === '' || password.length > 4096)
    return refuse(t('admin.flash.wrong_password'), 422);
  const check = await request.server.services.account.checkPassword(
    request.identity!.user.id,
    password,
    'admin_action',
    passwordCheckContext(request),
  );
  if (check.status === 'throttled') {
    reply.header('retry-after', String(check.retryAfterSeconds));
    return refuse(t('auth.throttle', { seconds: check.retryAfterSeconds }), 429);
  }
  return check.status === 'ok' ? null : refuse(t('admin.flash.wrong_password'), 422);
}

/** A numeric id from the path; anything else is a 404 (never a 500 or a query with NaN). */
export function idParam(value: unknown): number {
  const id = parseId(value);
  if (id === null) throw new NotFoundError();
  return id;
}
