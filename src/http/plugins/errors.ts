import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { HashQueueFullError } from '../../auth/passwords/passwords.ts';
import { ValidationError } from '../../lib/validation.ts';
import { OAUTH_CLIENT_ENDPOINTS } from '../../oauth/client-endpoints.ts';
import { AuthenticationError, HttpError, PasswordConfirmationRequiredError } from '../errors.ts';
import { methodNotAllowed } from '../method-not-allowed.ts';
import { expectsJson } from '../negotiation.ts';
import { redirectToConfirmation } from '../password-confirmation.ts';
import { sameSiteReferer } from '../request-context.ts';
import { currentAccount } from '../routes/web/support.ts';
import { resendThrottledForm, throttledFormOf } from '../throttled-form.ts';
import { errorPage } from '../views/error-page.ts';
import type { Account } from '../views/layout.ts';

/** Fastify's own request errors, mapped to docs/reference/errors.md statuses and our messages. */
const FASTIFY_ERRORS: Record<string, [number, string]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'http.payload_too_large'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, 'http.unsupported_media_type'],
  FST_ERR_CTP_INVALID_JSON_BODY: [400, 'http.malformed_json'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, 'http.bad_request'],
  FST_ERR_CTP_INVALID_TYPE: [400, 'http.bad_request'],
};

/**
 * The one place where errors become responses: JSON for API and JSON-accepting clients, a page
 * otherwise. Unexpected errors are logged and answered with a bare "Server Error", never a stack.
 */
export const errorsPlugin = fp(
  async (app) => {
    app.setErrorHandler(async (error: FastifyError, request, reply) => {
      const t = request.t;
      // Forms render their own errors (http/pages.ts validateForm); any other gets docs/reference/errors.md JSON.
      if (error instanceof ValidationError) {
        return reply.code(422).send({ message: error.summary, errors: error.errors });
      }
      if (error instanceof AuthenticationError && !expectsJson(request)) {
        return request.redirectToLogin(reply, error.guard);
      }
      if (error instanceof PasswordConfirmationRequiredError && !expectsJson(request)) {
        return redirectToConfirmation(request, reply);
      }
      if (error instanceof HashQueueFullError) {
        // docs/security.md: a login flood is answered at once instead of queueing every later login behind it.
        // In the words of the form that asked (a sign-up is no sign-in), on the form again when it has a page.
        reply.header('retry-after', String(error.retryAfterSeconds));
        const message = t(throttledFormOf(request)?.busy ?? 'auth.busy');
        if (!expectsJson(request)) {
          const shown = await resendThrottledForm(request, reply, 503, message);
          if (shown !== null) return shown;
        }
        return respond(request, reply, 503, message, message);
      }
      if (error instanceof HttpError) {
        reply.headers(error.headers);
        const message = t(error.messageKey, error.params);
        const detail = FOR_API_CLIENTS.has(error.messageKey) ? null : message;
        return respond(request, reply, error.statusCode, message, detail);
      }
      const known = error.code ? FASTIFY_ERRORS[error.code] : undefined;
      if (known) return respond(request, reply, known[0], t(known[1]));
      if (error instanceof SyntaxError || (error.statusCode === 400 && error.code === undefined)) {
        return respond(request, reply, 400, t('http.malformed_json'));
      }
      if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
        return respond(request, reply, error.statusCode, t('http.bad_request'));
      }
      request.log.error({ err: error }, 'unhandled error');
      return respond(request, reply, 500, t('http.server_error'));
    });

    app.setNotFoundHandler(async (request, reply) => {
      const wrongMethod = methodNotAllowed(app, request);
      if (wrongMethod !== null && OAUTH_CLIENT_ENDPOINTS.has(request.url.split('?', 1)[0]!)) {
        // A program calling an OAuth endpoint reads RFC 6749's error, not a page or Gatehouse's shape.
        reply.headers(wrongMethod.headers);
        return reply.code(405).send({
          error: 'invalid_request',
          error_description: `${request.method} is not allowed here; use ${wrongMethod.headers['allow']}`,
        });
      }
      if (wrongMethod !== null) throw wrongMethod;
      return respond(request, reply, 404, request.t('http.not_found'));
    });
  },
  { name: 'gatehouse-errors', dependencies: ['gatehouse-i18n'] },
);

/**
 * Messages worded for API clients, as Laravel words them (docs/reference/errors.md): JSON answers keep them, pages
 * explain the status in plain language instead.
 */
const FOR_API_CLIENTS = new Set([
  'auth.forbidden',
  'auth.unauthenticated',
  'http.csrf_mismatch',
  'http.not_found',
  'http.too_many_attempts',
  'http.bad_request',
  'verification.invalid_signature',
]);

async function respond(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  message: string,
  detail: string | null = null,
) {
  reply.code(status);
  if (expectsJson(request)) return reply.send({ message });
  const retryAfter = Number(reply.getHeader('retry-after'));
  const page = errorPage(request, {
    status,
    detail,
    retryAfter: Number.isInteger(retryAfter) && retryAfter > 0 ? retryAfter : null,
    account: status < 500 && !request.url.startsWith('/admin') ? await signedIn(request) : undefined,
    back: backLink(request),
  });
  return reply.type('text/html; charset=utf-8').send(page.value);
}

/** The header's account links on an error page; a failure here must not turn a 404 into a 500. */
async function signedIn(request: FastifyRequest): Promise<Account | null | undefined> {
  try {
    return await currentAccount(request);
  } catch (error) {
    request.log.warn({ err: error }, 'error page: account unknown');
    return undefined;
  }
}

/** "Go back": the page the browser came from, only when it is a page of this site (and not this one). */
function backLink(request: FastifyRequest): string | null {
  const path = sameSiteReferer(request);
  return path === request.url ? null : path;
}
