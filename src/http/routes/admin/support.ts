import type { FastifyReply, FastifyRequest } from 'fastify';
import { parseId } from '../../../db/ids.ts';
import { NotFoundError } from '../../errors.ts';
import { expectsJson } from '../../negotiation.ts';
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

/** A numeric id from the path; anything else is a 404 (never a 500 or a query with NaN). */
export function idParam(value: unknown): number {
  const id = parseId(value);
  if (id === null) throw new NotFoundError();
  return id;
}
