import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendPage } from '../pages.ts';
import { resolveIdentity } from '../plugins/auth.ts';
import { deviceCodePage } from './views/device.ts';

/**
 * Typing a device's code: 20^8 codes live 10 minutes each, few enough to guess at speed, so every
 * submission counts against the person and their address like a login attempt does (docs/security.md):
 * 10 a minute each, on the shared rate-limit store. A code page cannot be sent without that budget.
 */
const CODE_LIMIT = { max: 10, windowSeconds: 60 };

/**
 * In front of the library's /device (docs/guides/oidc-provider.md "Device flow"): the person signs in
 * first, with everything a login has (two-factor, passkeys, remember-me), and comes back here; only
 * then may they type a code, within the budget above.
 */
export async function deviceGate(request: FastifyRequest, reply: FastifyReply) {
  const identity = await resolveIdentity(request, ['web']);
  if (identity === null) return request.redirectToLogin(reply, 'web');
  if (request.method !== 'POST') return;
  const { limiter } = request.server.services;
  for (const key of [`device-code:user:${identity.user.id}`, `device-code:ip:${request.ip}`]) {
    const attempt = await limiter.attempt(key, CODE_LIMIT);
    if (attempt.allowed) continue;
    reply.header('retry-after', String(attempt.retryAfterSeconds));
    return sendPage(
      reply,
      deviceCodePage(request, {
        action: request.url.split('?')[0]!,
        xsrf: null,
        error: { key: 'throttled', values: { seconds: attempt.retryAfterSeconds } },
      }),
      429,
    );
  }
}
