import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CurrentBrowser } from '../../../account/browser-sessions.ts';
import { type PasswordCheck, passwordCheckSchema } from '../../../account/password-check.ts';
import { parseId } from '../../../db/ids.ts';
import type { Html } from '../../../lib/html.ts';
import { validate, validationError } from '../../../lib/validation.ts';
import { NotFoundError } from '../../errors.ts';
import { expectsJson } from '../../negotiation.ts';
import { sendPage, validateForm } from '../../pages.ts';
import { passwordConfirmed } from '../../password-confirmation.ts';
import { formBody } from '../../request-context.ts';
import { verificationNoticeHtml } from '../../verification-notice.ts';
import { accountPage } from '../../views/account/account-page.ts';
import { type AccountArea, type AccountPageContext, areaOfForm } from '../../views/account/page.ts';
import { ACCOUNT_AREAS } from '../../views/account/sections/index.ts';
import { type FormState, formState } from '../../views/forms.ts';

/** The `{id}` of a URL as a row id; anything that cannot name a row is 404 (db/ids.ts). */
export function idParam(request: FastifyRequest): number {
  const id = parseId((request.params as { id?: unknown }).id);
  if (id === null) throw new NotFoundError();
  return id;
}

/** The guards of every /user/* route: the web session (a guest gets 302 /login, JSON 401). */
export const ACCOUNT_GUARDS: readonly string[] = ['web'];

/** A form that asks only for the user's password (passwordCheckSchema), validated; 422 with `render`. */
export function validatePasswordForm(
  request: FastifyRequest,
  reply: FastifyReply,
  render: (state: FormState) => Html | Promise<Html>,
) {
  return validateForm(
    request,
    reply,
    () => validate<{ password: string }>(request.body, passwordCheckSchema, request.t),
    render,
  );
}

/**
 * A refused password check, answered like the login form answers one: 422 with `message` on the
 * password field, or 429 with auth.throttle and Retry-After once the login throttle is spent. JSON
 * clients get docs/reference/errors.md's body; browsers the form again (`render`), its password cleared.
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
  const text = throttled
    ? t('auth.throttle', { seconds: check.retryAfterSeconds })
    : check.status === 'no_password'
      ? t('account.no_password_yet')
      : message;
  const error = validationError({ [fieldName]: [text] }, t);
  if (throttled) reply.header('retry-after', String(check.retryAfterSeconds));
  const status = throttled ? 429 : 422;
  if (expectsJson(request)) return reply.code(status).send({ message: error.summary, errors: error.errors });
  return sendPage(reply, await render(formState(formBody(request), error.errors)), status);
}

/**
 * The account area (ACCOUNT_AREAS) with `area` open — or, when a form failed, the area of that form,
 * shown again with its errors beside its fields and its input kept (never a password). GET /profile,
 * GET /profile/{area} and every form of the area that fails use it.
 */
export async function accountPageHtml(
  request: FastifyRequest,
  failed?: { section: string; state: FormState },
  area: AccountArea = ACCOUNT_AREAS[0]!,
): Promise<Html> {
  // An unverified user's account forms are those of the verification notice (a mistyped address, or
  // deleting the account): shown again there, since the account area is not open to them yet.
  if (request.identity!.user.emailVerifiedAt === null) return verificationNoticeHtml(request, { failed });
  const session = await request.sessionOf('web').load();
  const open = (failed && areaOfForm(ACCOUNT_AREAS, failed.section)) || area;
  const context: AccountPageContext = {
    t: request.t,
    locale: request.locale,
    user: request.identity!.user,
    csrfToken: session.csrfToken(),
    failed,
    flashed: (key) => session.flashed(key),
    services: request.server.services,
    browser: { current: await currentBrowser(request), passwordConfirmed: await passwordConfirmed(request) },
  };
  return accountPage(request, context, ACCOUNT_AREAS, open, failed ? null : session.flashed('status'));
}

/** This browser as the session list knows it. */
export async function currentBrowser(request: FastifyRequest): Promise<CurrentBrowser> {
  const session = await request.sessionOf('web').load();
  return { key: session.key, rememberSelector: session.rememberSelector };
}

/** The render callback of a section's form for validateForm / refusePassword / refuseForm. */
export function accountForm(request: FastifyRequest, section: string) {
  return (state: FormState) => accountPageHtml(request, { section, state });
}

/** After a change: JSON 204 (or 200 with the message), browsers back to the section with a status line. */
export async function accountDone(
  request: FastifyRequest,
  reply: FastifyReply,
  section: string,
  message: string,
  jsonMessage = false,
): Promise<FastifyReply> {
  if (expectsJson(request)) return jsonMessage ? reply.send({ message }) : reply.code(204).send();
  const session = await request.sessionOf('web').load();
  session.flash('status', message);
  // An unverified user acted from the verification notice: back there (the account area would be too).
  const unverified = request.identity?.user.emailVerifiedAt === null;
  return reply.redirect(unverified ? '/email/verify' : `/profile#${section}`);
}
