import { abilitiesSchema, createTokenSchema } from '../../../account/api-tokens.ts';
import { EXPORT_PARTS } from '../../../account/data-export.ts';
import { profileSchema } from '../../../account/email-change.ts';
import { passwordChangeSchema } from '../../../account/password-change.ts';
import { passwordCheckSchema } from '../../../account/password-check.ts';
import type { JsonSchema } from '../../../lib/validation.ts';
import { twoFactorConfirmSchema } from '../../routes/account/two-factor.ts';
import { bodySchema } from '../bodies.ts';
import type { Op } from '../operation.ts';
import { ref } from '../schemas.ts';

/** GET /user/export: one key per part of account/data-export.ts, each part's shape its own. */
const exportDocument: JsonSchema = {
  type: 'object',
  properties: {
    exported_at: { type: 'string', format: 'date-time' },
    ...Object.fromEntries(EXPORT_PARTS.map((part) => [part.name, { description: `The ${part.name} part.` }])),
  },
  required: ['exported_at', ...EXPORT_PARTS.map((part) => part.name)],
};

const form = true;
const access = 'session';
const message = (description: string) => ({ description, json: ref('Message') });
const notFound = message('Not one of your ids.');
const done = (description: string) => ({ 204: { description } });
/** On every route that checks the user's password (docs/security.md, bounded hashing). */
const busy = message('Too many password checks are waiting; `Retry-After`.');

/** docs/guides/account.md and docs/guides/two-factor.md: the signed-in user's own account (web session or SPA session). */
export function accountPaths(abilityCatalogue: readonly string[]): Record<string, Record<string, Op>> {
  const tag = 'Account';
  const twoFactor = 'Two-factor authentication';
  return {
    '/user/confirm-password': {
      post: {
        tag,
        access,
        summary: 'Confirm the password for PASSWORD_TIMEOUT seconds',
        body: bodySchema(passwordCheckSchema),
        form,
        responses: {
          ...done('Confirmed.'),
          422: {
            description: '"The provided password was incorrect." (counts toward the login throttle)',
            json: ref('ValidationError'),
          },
          429: { description: 'Throttled (`auth.throttle` on `password`).', json: ref('Error') },
          503: busy,
        },
      },
    },
    '/user/confirmed-password-status': {
      get: {
        tag,
        access,
        summary: 'Whether the password was confirmed recently',
        responses: { 200: { description: 'The status.', json: ref('ConfirmedPasswordStatus') } },
      },
    },
    '/user/profile-information': {
      put: {
        tag,
        access,
        summary: 'Change the name; a new e-mail waits for the link sent to it',
        body: bodySchema(profileSchema),
        form,
        responses: {
          200: message('A link was sent to the new address.'),
          ...done('Saved.'),
        },
      },
    },
    '/user/pending-email': {
      delete: {
        tag,
        access,
        summary: 'Cancel a pending e-mail change',
        responses: done('Cancelled (or nothing was pending).'),
      },
    },
    '/email/change/{id}/{hash}': {
      get: {
        tag,
        access,
        summary: 'Open the link sent to a new address (`expires` and `signature` in the query)',
        responses: {
          200: message('The address changed (now verified); the old address is told.'),
          403: message('"Invalid signature." (bad, expired, replaced or foreign link).'),
          422: { description: 'The address was taken meanwhile.', json: ref('ValidationError') },
        },
      },
    },
    '/email/cancel-change/{id}/{hash}': {
      post: {
        tag,
        access: 'public',
        summary:
          'Cancel a pending address change with the link mailed to the current address (`expires` and `signature` in the query; no session needed)',
        responses: {
          204: { description: 'Cancelled: the account keeps its address.' },
          403: message('The link is bad or expired, or the change was confirmed, cancelled or replaced.'),
        },
      },
    },
    '/user/password': {
      put: {
        tag,
        access,
        summary: 'Change the password',
        description:
          'Every other session and every remember-me token ends; this browser gets a fresh session id.',
        body: bodySchema(passwordChangeSchema),
        form,
        responses: {
          ...done('Changed.'),
          429: { description: 'Throttled (`auth.throttle` on `current_password`).', json: ref('Error') },
          503: busy,
        },
      },
    },
    '/user/sessions': {
      get: {
        tag,
        access,
        summary: 'Live browser sessions and remembered browsers, newest activity first',
        responses: {
          200: { description: 'The sessions.', json: { type: 'array', items: ref('BrowserSession') } },
        },
      },
    },
    '/user/sessions/{id}': {
      delete: {
        tag,
        access,
        summary: 'End one browser session (and its remember-me token)',
        responses: { ...done('Ended.'), 404: notFound },
      },
    },
    '/user/other-browser-sessions': {
      delete: {
        tag,
        access,
        summary: "End every other session and every remember-me token but this browser's",
        body: bodySchema(passwordCheckSchema),
        form,
        responses: {
          ...done('Ended.'),
          429: { description: 'Throttled (`auth.throttle` on `password`).', json: ref('Error') },
          503: busy,
        },
      },
    },
    '/user/api-tokens': {
      get: {
        tag,
        access,
        summary: 'Your API tokens (as GET /api/tokens)',
        responses: { 200: { description: 'Newest first.', json: ref('TokenList') } },
      },
      post: {
        tag,
        access,
        summary: 'Create an API token with abilities from TOKEN_ABILITIES',
        body: bodySchema(createTokenSchema(abilityCatalogue)),
        form,
        responses: { 201: { description: 'The token, shown this once.', json: ref('CreatedAccessToken') } },
      },
    },
    '/user/api-tokens/{id}': {
      put: {
        tag,
        access,
        summary: "Replace a token's abilities",
        body: bodySchema(abilitiesSchema(abilityCatalogue)),
        form,
        responses: { ...done('Saved.'), 404: notFound },
      },
      delete: {
        tag,
        access,
        summary: 'Revoke a token',
        responses: { ...done('Revoked.'), 404: notFound },
      },
    },
    '/user/export': {
      get: {
        tag,
        access,
        confirmed: true,
        summary: 'Download everything stored about you (never a secret)',
        responses: {
          200: {
            description: 'A JSON file (`Content-Disposition: attachment`), one key per part.',
            json: exportDocument,
          },
        },
      },
    },
    '/user': {
      delete: {
        tag,
        access,
        summary: 'Delete the account and everything that belongs to it; this browser is signed out',
        body: bodySchema(passwordCheckSchema),
        form,
        responses: {
          ...done('Deleted; a goodbye mail goes to the address.'),
          422: {
            description: 'Wrong password, or the owner / the last user with panel access (on `account`).',
            json: ref('ValidationError'),
          },
          429: { description: 'Throttled (`auth.throttle` on `password`).', json: ref('Error') },
          503: busy,
        },
      },
    },
    '/user/two-factor-authentication': {
      post: {
        tag: twoFactor,
        access,
        confirmed: true,
        verified: true,
        summary: 'Start enrolment: a new secret and 8 recovery codes, active once confirmed',
        responses: done('Started (an active enrolment is left as it is).'),
      },
      delete: {
        tag: twoFactor,
        access,
        confirmed: true,
        summary: 'Turn two-factor off',
        responses: done('Off.'),
      },
    },
    '/user/two-factor-qr-code': {
      get: {
        tag: twoFactor,
        access,
        confirmed: true,
        summary: 'The key URI and its QR code (SVG)',
        responses: {
          200: { description: 'The QR code.', json: ref('TwoFactorQrCode') },
          404: message('Two-factor has not been set up.'),
        },
      },
    },
    '/user/two-factor-secret-key': {
      get: {
        tag: twoFactor,
        access,
        confirmed: true,
        summary: 'The secret for typing in (base32)',
        responses: {
          200: { description: 'The secret.', json: ref('TwoFactorSecretKey') },
          404: message('Two-factor has not been set up.'),
        },
      },
    },
    '/user/confirmed-two-factor-authentication': {
      post: {
        tag: twoFactor,
        access,
        confirmed: true,
        verified: true,
        summary: 'Activate two-factor with a current code',
        body: bodySchema(twoFactorConfirmSchema),
        form,
        responses: done('Active.'),
      },
    },
    '/user/two-factor-recovery-codes': {
      get: {
        tag: twoFactor,
        access,
        confirmed: true,
        summary: 'The unused recovery codes',
        responses: {
          200: { description: 'The codes.', json: ref('RecoveryCodes') },
          404: message('Two-factor has not been set up.'),
        },
      },
      post: {
        tag: twoFactor,
        access,
        confirmed: true,
        summary: 'A new set of 8 recovery codes (the old ones stop working)',
        responses: { ...done('Regenerated.'), 404: message('Two-factor has not been set up.') },
      },
    },
  };
}
