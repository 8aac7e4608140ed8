import type { FastifyReply, FastifyRequest } from 'fastify';
import { ValidationError } from '../../../lib/validation.ts';
import { expectsJson } from '../../negotiation.ts';
import type { FormState } from '../../views/forms.ts';
import type { Html } from '../../views/html.ts';

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
