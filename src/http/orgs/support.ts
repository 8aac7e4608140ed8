import type { FastifyReply, FastifyRequest } from 'fastify';
import { parseId } from '../../db/ids.ts';
import type { Html } from '../../lib/html.ts';
import { validationError } from '../../lib/validation.ts';
import type { OrgAttempt, OrgRefusal } from '../../orgs/access.ts';
import type { MemberRef } from '../../orgs/members.ts';
import { ForbiddenError, NotFoundError } from '../errors.ts';
import { expectsJson } from '../negotiation.ts';
import { sendPage } from '../pages.ts';

/** Every organization route is the web session's (a guest gets 302 /login, JSON 401). */
export const ORG_GUARDS: readonly string[] = ['web'];

/** The `{slug}` of a URL, as sent: the domain decides what it names (orgs/access.ts). */
export function slugParam(request: FastifyRequest): string {
  const slug = (request.params as { slug?: unknown }).slug;
  return typeof slug === 'string' ? slug : '';
}

/** `{user}`: a user id, or `me`; anything else names nobody (404). */
export function memberParam(request: FastifyRequest): MemberRef {
  const raw = (request.params as { user?: unknown }).user;
  if (raw === 'me') return 'me';
  const id = parseId(raw);
  if (id === null) throw new NotFoundError();
  return id;
}

/** A row id of the URL (`{id}`); anything that cannot name a row is 404. */
export function idParam(request: FastifyRequest): number {
  const id = parseId((request.params as { id?: unknown }).id);
  if (id === null) throw new NotFoundError();
  return id;
}

/**
 * preHandler (after the web guard): the signed-in user may set out to do `attempt` on the URL's
 * organization — and, with `member`, the URL's `{user}` is one of its members. 404 / 403 here, before
 * the body is validated or a password confirmation is asked for (orgs/access.ts refusalBefore says why).
 */
export function mayAttempt(attempt: OrgAttempt, options: { member?: boolean } = {}) {
  return async (request: FastifyRequest): Promise<void> => {
    const userId = request.identity!.user.id;
    const member = options.member ? memberParam(request) : undefined;
    const targetId = member === 'me' ? userId : member;
    const { orgs } = request.server.services;
    const refusal = await orgs.refusalBefore(slugParam(request), userId, attempt, targetId);
    if (refusal !== null) throwIfDenied(refusal);
  };
}

/** 404 for an unknown organization and a non-member alike (the same error, so the same bytes), 403 for
 * a member whose role does not allow it; a `last_owner` refusal is left to the caller (422). */
function throwIfDenied(refusal: OrgRefusal): void {
  if (refusal === 'not_found') throw new NotFoundError();
  if (refusal === 'forbidden') throw new ForbiddenError();
}

/**
 * A refused change, answered as docs/guides/organizations.md says: 404 for an unknown organization and a
 * non-member alike (the same error, so the same bytes), 403 for a member whose role does not allow it,
 * 422 for the last owner leaving or losing the role — on `field`, or, in a browser, the page again
 * (`render`) with the refusal shown.
 */
export async function refuse(
  request: FastifyRequest,
  reply: FastifyReply,
  refusal: OrgRefusal,
  field: string,
  render: (error: string) => Promise<Html | null>,
): Promise<FastifyReply> {
  throwIfDenied(refusal);
  const message = request.t('orgs.last_owner');
  if (expectsJson(request)) throw validationError({ [field]: [message] }, request.t);
  const page = await render(message);
  if (page === null) throw new NotFoundError();
  return sendPage(reply, page, 422);
}

/** After a change: JSON 204, browsers to `location` with a status line. */
export async function done(
  request: FastifyRequest,
  reply: FastifyReply,
  location: string,
  message: string,
): Promise<FastifyReply> {
  if (expectsJson(request)) return reply.code(204).send();
  const session = await request.sessionOf('web').load();
  session.flash('status', message);
  return reply.redirect(location);
}

/** The status line a redirect carried here (flashed), for the page's status region. */
export async function flashedStatus(request: FastifyRequest): Promise<unknown> {
  return (await request.sessionOf('web').load()).flashed('status');
}

/** The session key of the current organization (PUT /user/current-org). */
export const CURRENT_ORG = 'current_organization_id';
