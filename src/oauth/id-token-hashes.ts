import type { default as Provider } from 'oidc-provider';

/**
 * `at_hash` in the ID tokens of the token endpoint (authorization code, device code and refresh), as
 * for any ID token issued beside an access token (docs/guides/oidc-provider.md "Tokens"). oidc-provider
 * adds it only to ID tokens of the authorization endpoint and has no setting for the token endpoint's:
 * there it saves the access token (the value, a signed JWT, is returned, not kept) and then issues the
 * ID token in the same request. So the value is remembered for that access token object, and the ID
 * token issued for it gets it as `at_hash` — which the library itself then hashes for the ID token's
 * algorithm (the left half of SHA-256 for RS256 and ES256), as it does at the authorization endpoint.
 */
export function addAccessTokenHash(provider: Provider): void {
  const values = new WeakMap<object, string>();
  const { AccessToken, IdToken } = provider;
  const save = AccessToken.prototype.save;
  AccessToken.prototype.save = async function saveAndRemember(this: InstanceType<typeof AccessToken>) {
    const value = await save.call(this);
    values.set(this, value);
    return value;
  };
  const issue = IdToken.prototype.issue;
  IdToken.prototype.issue = function issueWithAtHash(this: InstanceType<typeof IdToken>, options) {
    const accessToken = options.use === 'idtoken' ? this.ctx?.oidc.entities.AccessToken : undefined;
    const value = accessToken === undefined ? undefined : values.get(accessToken);
    if (value !== undefined) this.set('at_hash', value);
    return issue.call(this, options);
  };
}
