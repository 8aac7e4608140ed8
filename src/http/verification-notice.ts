import type { FastifyRequest } from 'fastify';
import type { Html } from '../lib/html.ts';
import type { FormState } from './views/forms.ts';
import { verifyEmailPage } from './views/pages/verify-email.ts';

/** Laravel's `throttle:6,1` on the resend button: a mailbox cannot be flooded from one account. */
export const RESEND_LIMIT = { max: 6, windowSeconds: 60 };
export const resendKey = (userId: number) => `verification:${userId}`;

/**
 * The verification notice (GET /email/verify) for the signed-in, unverified user: where the link went,
 * the resend button and when it works again, and the two ways out of a mistyped address — correct it
 * (PUT /user/profile-information) or delete the account (DELETE /user). Those account forms, failing
 * for an unverified user, show this page again with `failed` (the account page is not theirs yet).
 */
export async function verificationNoticeHtml(
  request: FastifyRequest,
  options: { failed?: { section: string; state: FormState }; waitSeconds?: number | null } = {},
): Promise<Html> {
  const { limiter } = request.server.services;
  const session = await request.sessionOf('web').load();
  // Peeks without spending an attempt: the page says when the button works again.
  const waitSeconds =
    options.waitSeconds ?? (await limiter.blocked(resendKey(request.identity!.user.id), RESEND_LIMIT));
  return verifyEmailPage(request, {
    t: request.t,
    user: request.identity!.user,
    csrfToken: session.csrfToken(),
    status: options.failed ? undefined : session.flashed('status'),
    limit: RESEND_LIMIT.max,
    waitSeconds,
    failed: options.failed,
  });
}
