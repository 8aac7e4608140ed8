import type { Translate } from '../../../i18n/i18n.ts';
import { OIDC_SCOPES } from '../../../oauth/scopes.ts';

const NAMED: ReadonlySet<string> = new Set(OIDC_SCOPES);

/**
 * Each scope in plain words, in the visitor's language. An API ability `<resource>:read` reads as
 * "read your <resource>", `:write` as "create and change your <resource>"; any other ability is named.
 */
export function scopeDescriptions(t: Translate, scopes: readonly string[], appName: string): string[] {
  return scopes.map((scope) => {
    if (NAMED.has(scope)) {
      return t(`oauth.scopes.${scope}`, { app: appName });
    }
    const [resource, action] = scope.split(':');
    if (action === 'read' || action === 'write') return t(`oauth.scopes.api_${action}`, { resource });
    return t('oauth.scopes.api_other', { ability: scope });
  });
}
