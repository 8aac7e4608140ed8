import type { KoaContextWithOIDC } from 'oidc-provider';
import { DEVICE_POLL_INTERVAL_SECONDS } from '../../oauth/device-polls.ts';

export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/**
 * RFC 8628 §3.2: the device authorization response says how long to wait between polls. The library
 * leaves `interval` out (its default, 5, is implied); ours is stated, and enforced by
 * oauth/device-polls.ts (docs/guides/oidc-provider.md "Device flow").
 */
export function devicePollInterval() {
  return async function interval(ctx: KoaContextWithOIDC, next: () => Promise<void>): Promise<void> {
    await next();
    if (ctx.oidc?.route !== 'device_authorization' || ctx.status !== 200) return;
    ctx.body = { ...(ctx.body as object), interval: DEVICE_POLL_INTERVAL_SECONDS };
  };
}
