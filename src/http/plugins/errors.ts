import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ValidationError } from '../../lib/validation.ts';
import { AuthenticationError, HttpError } from '../errors.ts';
import { expectsJson } from '../negotiation.ts';
import { errorPage } from '../views/error-page.ts';

/** Fastify's own request errors, mapped to CONTRACT §2 statuses and our messages. */
const FASTIFY_ERRORS: Record<string, [number, string]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'http.payload_too_large'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, 'http.unsupported_media_type'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'http.malformed_json'],
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
      // Forms render their own errors (http/pages.ts validateForm); any other gets CONTRACT §2 JSON.
      if (error instanceof ValidationError) {
        return reply.code(422).send({ message: error.summary, errors: error.errors });
      }
      if (error instanceof AuthenticationError && !expectsJson(request)) {
        return request.redirectToLogin(reply, error.guard);
      }
      if (error instanceof HttpError) {
        reply.headers(error.headers);
        return respond(request, reply, error.statusCode, t(error.messageKey, error.params));
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

    app.setNotFoundHandler(async (request, reply) =>
      respond(request, reply, 404, request.t('http.not_found')),
    );
  },
  { name: 'gatehouse-errors', dependencies: ['gatehouse-i18n'] },
);

function respond(request: FastifyRequest, reply: FastifyReply, status: number, message: string) {
  reply.code(status);
  if (expectsJson(request)) return reply.send({ message });
  return reply.type('text/html; charset=utf-8').send(errorPage(request, status, message).value);
}
