import type { Op } from '../openapi/operation.ts';
import { ref } from '../openapi/schemas.ts';

const message = (description: string) => ({ description, json: ref('Message') });

/**
 * What people and administrators do with the OpenID Connect provider in /openapi.json
 * (docs/guides/oidc-provider.md "Connected apps"): the account's connected apps.
 */
export const oauthPeoplePaths: Record<string, Record<string, Op>> = {
  '/user/connected-apps/{clientId}': {
    delete: {
      tag: 'Account',
      access: 'session',
      summary: 'Disconnect an application (OpenID Connect client) you allowed',
      description:
        'Removes the consent and revokes every grant of this client for you, with its refresh tokens; its JWT access tokens are refused at once by /api/* and /oauth/userinfo. A form may POST with `_method=DELETE` (303 back to the account page).',
      responses: {
        204: { description: 'Disconnected.' },
        404: message('Not an application you allowed.'),
      },
    },
  },
};
