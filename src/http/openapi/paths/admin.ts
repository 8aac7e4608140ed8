import { inviteSchema } from '../../../admin/user-lifecycle.ts';
import { loginSchema } from '../../login/login-form.ts';
import { bodySchema } from '../bodies.ts';
import type { Op } from '../operation.ts';
import { ref } from '../schemas.ts';
import { challenge } from './browser.ts';

const tag = 'Administration panel';
const access = 'admin';
const form = true;
const message = (description: string) => ({ description, json: ref('Message') });

/** A panel action on one user: 200 with the message shown in the panel, or a refusal. */
function action(summary: string, refusals: Record<number, string> = {}): Record<string, Op> {
  return {
    post: {
      tag,
      access,
      summary,
      responses: {
        200: message('Done (or nothing to change); the message the panel shows.'),
        403: message('Refused: not for yourself or for the owner.'),
        404: message('No such user (or token, or session).'),
        ...Object.fromEntries(Object.entries(refusals).map(([status, text]) => [status, message(text)])),
      },
    },
  };
}

/** docs/guides/admin-panel.md: the panel as a JSON client meets it (its own session cookie and CSRF token). */
export const adminPaths: Record<string, Record<string, Op>> = {
  '/admin/login': {
    post: {
      tag,
      access: 'public',
      summary: 'Log in to the panel (its own session)',
      body: bodySchema(loginSchema),
      form,
      responses: {
        200: { description: 'Right password, two-factor owed.', json: ref('TwoFactorRequired') },
        204: { description: 'Logged in.' },
        422: {
          description: 'Invalid input or "These credentials do not match our records."',
          json: ref('ValidationError'),
        },
        429: { description: 'Throttled (`Retry-After`).', json: ref('Error') },
        503: message('Too many password checks are waiting; `Retry-After`.'),
      },
    },
  },
  '/admin/logout': {
    post: {
      tag,
      access: 'public',
      summary: 'End the panel session',
      responses: { 204: { description: 'Logged out.' } },
    },
  },
  '/admin/two-factor-challenge': {
    post: challenge('Finish a panel login with a code or a recovery code', tag),
  },
  '/admin/users': {
    post: {
      tag,
      access,
      summary: 'Invite a user (a set-password link is mailed)',
      body: bodySchema(inviteSchema),
      form,
      responses: {
        201: {
          description: 'Invited.',
          json: {
            type: 'object',
            properties: { message: { type: 'string' }, id: { type: 'integer' } },
            required: ['message', 'id'],
            additionalProperties: false,
          },
        },
      },
    },
  },
  '/admin/webhooks/{id}/retry': {
    post: {
      tag,
      access,
      summary: 'Make an undelivered webhook delivery due now',
      responses: {
        200: message('Due now; the message the panel shows.'),
        404: message('No such delivery.'),
        409: message('Already delivered, or being sent right now.'),
      },
    },
  },
  '/admin/users/{id}/verify': action('Mark the e-mail verified'),
  '/admin/users/{id}/disable': action('Disable the account (it can neither log in nor use tokens)'),
  '/admin/users/{id}/enable': action('Enable the account'),
  '/admin/users/{id}/panel-access/grant': action('Grant panel access'),
  '/admin/users/{id}/panel-access/withdraw': action('Withdraw panel access'),
  '/admin/users/{id}/two-factor/disable': action("Turn the user's two-factor off (the user is mailed)"),
  '/admin/users/{id}/passkeys/{passkey}/delete': action(
    "Remove one of the user's passkeys (the admin's `password` in the body; the user is mailed)",
    { 422: 'Wrong password.', 429: 'Too many wrong passwords.' },
  ),
  '/admin/users/{id}/tokens/{token}/revoke': action('Revoke one API token'),
  '/admin/users/{id}/tokens/revoke-all': action('Revoke every API token'),
  '/admin/users/{id}/sessions/{session}/end': action('End one session'),
  '/admin/users/{id}/sessions/end-all': action('End every session and remember-me token'),
  '/admin/users/{id}/password-reset-link': action('Mail a password-reset link', {
    429: 'One a minute per address.',
  }),
  '/admin/users/{id}/verification-link': action('Mail a verification link'),
  '/admin/users/{id}/delete': action("Delete the user (the admin's `password` in the body)", {
    422: 'Wrong password.',
    429: 'Too many wrong passwords.',
    503: 'Too many password checks are waiting; `Retry-After`.',
  }),
};
