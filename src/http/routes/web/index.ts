import type { FastifyInstance } from 'fastify';
import { twoFactorChallengeRoutes } from '../../login/two-factor-challenge.ts';
import { csrfCookieRoutes } from './csrf-cookie.ts';
import { dashboardRoutes } from './dashboard.ts';
import { emailVerificationRoutes } from './email-verification.ts';
import { homeRoutes } from './home.ts';
import { loginRoutes } from './login.ts';
import { passkeyLoginRoutes } from './passkey-login.ts';
import { passwordResetRoutes } from './password-reset.ts';
import { registerRoutes } from './register.ts';

/** The server-rendered pages of the web guard: sign-in, registration, e-mail flows, dashboard (the account page, /profile, is routes/account/). */
export async function webRoutes(app: FastifyInstance) {
  await app.register(loginRoutes);
  await app.register(passkeyLoginRoutes);
  await app.register(
    twoFactorChallengeRoutes({
      guard: 'web',
      loginPath: '/login',
      fallback: app.services.config.loginRedirect,
    }),
  );
  await app.register(csrfCookieRoutes);
  await app.register(dashboardRoutes);
  await app.register(homeRoutes);
  await app.register(registerRoutes);
  await app.register(passwordResetRoutes);
  await app.register(emailVerificationRoutes);
}
