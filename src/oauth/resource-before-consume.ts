import type { default as Provider } from 'oidc-provider';
import type { OidcLibrary } from './library.ts';

/**
 * A token request naming a resource other than Gatehouse (RFC 8707 `resource`) is `invalid_target`,
 * and, like every refused request, it must use up nothing. oidc-provider resolves the resource only
 * after it has consumed the code, device code or refresh token it was given (the resource server's
 * details come with the access token it then builds): the code was lost, and a refresh token was
 * rotated without its successor being handed out, so the client's retry with the token it holds was
 * a reuse that revoked the whole grant and was audited as a stolen token. So the resource is checked
 * when the library is about to consume, before anything is written, with the same rule as
 * provider-config.ts `getResourceServerInfo`: Gatehouse itself, or nothing. (Several values are the
 * library's to decide; `defaultResource` resolves them to Gatehouse.)
 */
export function checkResourceBeforeConsume(library: OidcLibrary, provider: Provider, audience: string): void {
  const { Provider: ProviderClass, errors } = library;
  for (const Model of [provider.AuthorizationCode, provider.DeviceCode, provider.RefreshToken]) {
    const consume = Model.prototype.consume;
    Model.prototype.consume = async function consumeForOurResource(this: InstanceType<typeof Model>) {
      const oidc = ProviderClass.ctx?.oidc;
      const resource = oidc?.route === 'token' ? oidc.params?.['resource'] : undefined;
      if (typeof resource === 'string' && resource !== audience) throw new errors.InvalidTarget();
      return consume.call(this);
    };
  }
}
