import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Html } from '../lib/html.ts';
import { sendPage } from './pages.ts';
import { formBody } from './request-context.ts';
import { type FormState, formState } from './views/forms.ts';

/**
 * What a form route says when the per-IP budget or a full hash queue refuses it (docs/security.md,
 * docs/reference/errors.md): its own words ("too many password reset requests", never "login
 * attempts" on a form that is no login), at its own field, and — with `render` — the very form
 * again with what was typed (passwords never come back), so trying again is one click.
 */
export interface ThrottledForm {
  /** The throttle text, with `{{seconds}}`: auth.throttle for the login forms. */
  readonly message: string;
  /** The 503 text (the hash queue is full): auth.busy for the login forms. */
  readonly busy: string;
  /** The field the text stands at. */
  readonly field: string;
  /** The form page, shown again; without it the refusal is the error page with this text. */
  readonly render?: (request: FastifyRequest, state: FormState) => Html | Promise<Html>;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's form, for its 429 and 503 answers (http/throttled-form.ts). */
    throttledForm?: ThrottledForm;
  }
}

/** The login forms' words: the budget and the hash queue refuse a login there. */
export const LOGIN_FORM: Omit<ThrottledForm, 'field' | 'render'> = {
  message: 'auth.throttle',
  busy: 'auth.busy',
};

/** The route's form, when it has one. */
export function throttledFormOf(request: FastifyRequest): ThrottledForm | undefined {
  return request.routeOptions.config?.throttledForm;
}

/**
 * The refused form shown again with `message` at its field (status 429 or 503, Retry-After set by the
 * caller), or null when the route has no page to show (the error page then says the message).
 */
export async function resendThrottledForm(
  request: FastifyRequest,
  reply: FastifyReply,
  status: 429 | 503,
  message: string,
): Promise<FastifyReply | null> {
  const form = throttledFormOf(request);
  if (form?.render === undefined) return null;
  const state = formState(formBody(request), { [form.field]: [message] });
  return sendPage(reply, await form.render(request, state), status);
}
