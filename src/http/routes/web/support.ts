import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Html } from '../../../lib/html.ts';
import { ValidationError } from '../../../lib/validation.ts';
import { ForbiddenError } from '../../errors.ts';
import { expectsJson } from '../../negotiation.ts';
import { authRequest } from '../../plugins/auth.ts';
import type { FormState } from '../../views/forms.ts';
import type { Account } from '../../views/layout.ts';

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
      reply: sendPage(reply, await render({ errors: error.errors, old: formBody(request) }), 422),
    };
  }
}

export function formBody(request: FastifyRequest): Record<string, unknown> {
  const body = request.body;
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}

/** A local path to continue to after login, never another site (no "//host", "/\\host" or schemes). */
export function safeLocalPath(value: unknown, fallback: string): string {
  if (
    typeof value !== 'string' ||
    !value.startsWith('/') ||
    value.startsWith('//') ||
    value.startsWith('/\\')
  ) {
    return fallback;
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters is the point
  return /[\u0000-\u001f\u007f\\]/.test(value) ? fallback : value;
}

/**
 * The signed-in web account for the page header (null for a guest). Guarded pages already know the
 * identity; public pages ask the web guard, which may restore a session from a remember-me cookie.
 */
export async function currentAccount(request: FastifyRequest): Promise<Account | null> {
  const identity =
    request.identity?.guard === 'web'
      ? request.identity
      : await request.server.guards.get('web')!.authenticate(authRequest(request));
  if (identity === null) return null;
  return { name: identity.user.name, csrfToken: request.sessionOf('web').csrfToken() };
}

/** Guest-only pages (login, register): a signed-in user has nothing to do there. */
export async function redirectIfAuthenticated(request: FastifyRequest, reply: FastifyReply) {
  if (await request.server.guards.get('web')!.check(authRequest(request))) {
    return reply.redirect(request.server.services.config.loginRedirect);
  }
}

/**
 * preHandler after requireAuth(['web']): pages that need a verified address. Browsers go to the
 * verification notice; JSON clients get 403 with auth.unverified (Laravel's EnsureEmailIsVerified).
 */
export async function requireVerifiedEmail(request: FastifyRequest, reply: FastifyReply) {
  const user = request.identity?.user;
  if (user !== undefined && user.emailVerifiedAt !== null) return;
  if (expectsJson(request)) throw new ForbiddenError('auth.unverified');
  return reply.redirect('/email/verify');
}
