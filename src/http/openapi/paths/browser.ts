import { forgotPasswordSchema, resetPasswordSchema } from '../../../auth/password-reset/password-reset.ts';
import { registrationSchema } from '../../../users/registration.ts';
import { loginSchema } from '../../login/login-form.ts';
import { challengeSchema } from '../../login/two-factor-challenge.ts';
import { bodySchema } from '../bodies.ts';
import type { Op } from '../operation.ts';
import { ref } from '../schemas.ts';

const tag = 'Browser sessions (SPA)';
const form = true;
const message = (description: string) => ({ description, json: ref('Message') });

/**
 * docs/guides/sessions-and-spas.md, docs/guides/two-factor.md: the browser routes as a JSON client (`Accept: application/json`, e.g. an SPA on a
 * stateful domain) meets them. Browsers posting the forms get pages and redirects instead.
 */
export const browserPaths: Record<string, Record<string, Op>> = {
  '/sanctum/csrf-cookie': {
    get: {
      tag,
      access: 'public',
      summary: 'Start an SPA session: the session cookie and a readable XSRF-TOKEN cookie',
      responses: { 204: { description: 'Cookies set; copy XSRF-TOKEN into the X-XSRF-TOKEN header.' } },
    },
  },
  '/login': {
    post: {
      tag,
      access: 'public',
      summary: 'Log in (fresh session id)',
      description:
        'After 5 failures per e-mail and IP within 60 s: 429 with the `auth.throttle` text on `email`.',
      body: bodySchema(loginSchema),
      form,
      responses: {
        200: {
          description: 'Right password, two-factor owed: go to the challenge.',
          json: ref('TwoFactorRequired'),
        },
        204: { description: 'Logged in.' },
        419: message('CSRF token missing or wrong.'),
        422: {
          description: 'Invalid input, or "These credentials do not match our records." on `email`.',
          json: ref('ValidationError'),
        },
        429: { description: 'Throttled (`Retry-After`).', json: ref('Error') },
        503: message('Too many password checks are waiting; `Retry-After`.'),
      },
    },
  },
  '/register': {
    post: {
      tag,
      access: 'public',
      summary: 'Register and log in; a verification mail is sent',
      body: bodySchema(registrationSchema),
      form,
      responses: { 204: { description: 'Registered and logged in.' } },
    },
  },
  '/logout': {
    post: {
      tag,
      access: 'public',
      summary: 'End the session and forget the remember-me token',
      responses: { 204: { description: 'Logged out (also when there was nothing to end).' } },
    },
  },
  '/forgot-password': {
    post: {
      tag,
      access: 'public',
      summary: 'Mail a reset link (the same answer for any well-formed address)',
      body: bodySchema(forgotPasswordSchema),
      form,
      responses: { 200: message('"We have emailed your password reset link."') },
    },
  },
  '/reset-password': {
    post: {
      tag,
      access: 'public',
      summary: 'Choose a new password with a mailed token',
      description: 'Every session, remember-me token and API token of the user is revoked.',
      body: bodySchema(resetPasswordSchema),
      form,
      responses: {
        200: message('"Your password has been reset."'),
        422: {
          description: 'Invalid input, or "This password reset token is invalid." on `email`.',
          json: ref('ValidationError'),
        },
      },
    },
  },
  '/email/verify': {
    get: {
      tag,
      access: 'session',
      summary: 'Whether the address still needs verifying',
      responses: { 200: message('The notice, or "Your email address is already verified."') },
    },
  },
  '/email/verification-notification': {
    post: {
      tag,
      access: 'session',
      summary: 'Send a new verification link (6 a minute)',
      responses: { 200: message('"A new verification link has been sent…", or already verified.') },
    },
  },
  '/email/verify/{id}/{hash}': {
    get: {
      tag,
      access: 'session',
      summary: 'Open a verification link (`expires` and `signature` in the query)',
      responses: {
        204: { description: 'Verified.' },
        403: message('Bad or expired signature ("Invalid signature."), or another user\'s link.'),
      },
    },
  },
  '/two-factor-challenge': { post: challenge('Finish a login with a TOTP `code` or a `recovery_code`', tag) },
};

/** The second step of a login whose password was right (docs/guides/two-factor.md), for the web and the panel. */
export function challenge(summary: string, tag: string): Op {
  return {
    tag,
    access: 'public',
    summary,
    body: bodySchema(challengeSchema),
    form,
    responses: {
      204: { description: 'Logged in with a fresh session id.' },
      401: message('No pending login in this browser (it expires after 5 minutes): log in again.'),
      422: { description: 'The code or recovery code was invalid.', json: ref('ValidationError') },
      429: { description: 'Too many wrong codes (`Retry-After`).', json: ref('Error') },
    },
  };
}
