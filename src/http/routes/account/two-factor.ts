import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { loadQrcode } from '../../../lib/packages-on-demand.ts';
import { field, rules, type Schema, validate, validationError } from '../../../lib/validation.ts';
import { HttpError } from '../../errors.ts';
import { formRoute } from '../../form-methods.ts';
import { expectsJson } from '../../negotiation.ts';
import { refuseForm, sendPage, validateForm } from '../../pages.ts';
import { requirePasswordConfirmation } from '../../password-confirmation.ts';
import { auditContext } from '../../request-context.ts';
import { requireVerifiedEmail } from '../../verified-email.ts';
import { ACCOUNT_AREAS } from '../../views/account/sections/index.ts';
import { SAVED_CODES_FIELD, SETUP_FORM_FIELD, twoFactorPage } from '../../views/account/two-factor.ts';
import type { FormState } from '../../views/forms.ts';
import { ACCOUNT_GUARDS } from './support.ts';

/** The account page's two-factor screen (no JSON twin: the JSON routes below are the API). */
export const TWO_FACTOR_PAGE = '/user/two-factor';

export const twoFactorConfirmSchema = { code: field.required(rules.string(), rules.max(64)) };

/**
 * The setup page's form also asks for "I have saved my recovery codes" (one pass reports both errors):
 * turning two-factor on without them risks a locked-out account at the first lost phone. Fortify's JSON
 * clients send the code alone and are not asked (docs/guides/two-factor.md).
 */
function confirmForm(body: unknown): [unknown, Schema] {
  const form = body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  if (form[SETUP_FORM_FIELD] !== '1') return [body, twoFactorConfirmSchema];
  // An unticked checkbox sends nothing: it is "not saved", with its own message, not "field is required".
  const ticked = { ...form, [SAVED_CODES_FIELD]: form[SAVED_CODES_FIELD] ?? '0' };
  return [ticked, { [SAVED_CODES_FIELD]: savedCodes, ...twoFactorConfirmSchema }];
}

const savedCodes = field.required(
  rules.custom((value) => (value === '1' ? undefined : { key: 'two_factor.saved_codes_required' })),
);

/** Nothing to show before enrolment started: 404 with a message saying so. */
class NotEnrolledError extends HttpError {
  constructor() {
    super(404, 'GH_TWO_FACTOR_NOT_ENROLLED', 'two_factor.not_enrolled');
  }
}

/**
 * Two-factor management (docs/guides/two-factor.md), Fortify's routes: every one needs the web session and a
 * password confirmation younger than PASSWORD_TIMEOUT (docs/guides/account.md), so a session left open on a shared
 * computer cannot read the secret, the recovery codes, or switch two-factor off.
 */
export async function twoFactorRoutes(app: FastifyInstance) {
  const { auth, config } = app.services;
  const confirmed = [app.requireAuth(ACCOUNT_GUARDS), requirePasswordConfirmation];
  // Enrolment needs a verified address (docs/security.md), asked before the password confirmation.
  const enrolling = [app.requireAuth(ACCOUNT_GUARDS), requireVerifiedEmail, requirePasswordConfirmation];

  const securityArea = ACCOUNT_AREAS.find((area) => area.id === 'security')!;
  const render = async (request: FastifyRequest, state: FormState) => {
    const user = request.identity!.user;
    const session = request.sessionOf('web');
    const twoFactor = await auth.twoFactor.state(user.id);
    const setup = twoFactor.status === 'enrolling' ? await auth.twoFactor.setup(user) : null;
    return twoFactorPage(request, state, {
      t: request.t,
      areas: ACCOUNT_AREAS,
      area: securityArea,
      user,
      csrfToken: session.csrfToken(),
      state: twoFactor,
      setup: setup && { ...setup, svg: await qrSvg(setup.url) },
      recoveryCodes: twoFactor.status === 'off' ? [] : ((await auth.twoFactor.recoveryCodes(user.id)) ?? []),
      status: session.flashed('status'),
      appName: config.appName,
    });
  };

  /** A form's success: back to the two-factor screen with a status line (JSON: 204). */
  const done = async (
    request: FastifyRequest,
    reply: FastifyReply,
    statusKey: string,
    to = TWO_FACTOR_PAGE,
  ) => {
    if (expectsJson(request)) return reply.code(204).send();
    const session = await request.sessionOf('web').load();
    session.flash('status', request.t(statusKey));
    return reply.redirect(to);
  };

  app.get(TWO_FACTOR_PAGE, { preHandler: confirmed }, async (request, reply) =>
    sendPage(reply, await render(request, {})),
  );

  formRoute(app, 'POST', '/user/two-factor-authentication', enrolling, async (request, reply) => {
    const started = await auth.twoFactor.start(request.identity!.user.id, auditContext(request));
    return done(
      request,
      reply,
      started === 'started' ? 'two_factor.status_started' : 'two_factor.status_already',
    );
  });

  formRoute(app, 'DELETE', '/user/two-factor-authentication', confirmed, async (request, reply) => {
    await auth.twoFactor.disable(request.identity!.user, 'user', auditContext(request));
    return done(request, reply, 'two_factor.status_disabled', '/profile');
  });

  app.get('/user/two-factor-qr-code', { preHandler: confirmed }, async (request) => {
    const setup = await auth.twoFactor.setup(request.identity!.user);
    if (setup === null) throw new NotEnrolledError();
    return { svg: await qrSvg(setup.url), url: setup.url };
  });

  app.get('/user/two-factor-secret-key', { preHandler: confirmed }, async (request) => {
    const setup = await auth.twoFactor.setup(request.identity!.user);
    if (setup === null) throw new NotEnrolledError();
    return { secretKey: setup.secret };
  });

  app.post('/user/confirmed-two-factor-authentication', { preHandler: enrolling }, async (request, reply) => {
    const t = request.t;
    const validated = await validateForm(
      request,
      reply,
      () => validate<{ code: string }>(...confirmForm(request.body), t),
      (state) => render(request, state),
    );
    if (!validated.ok) return validated.reply;
    const result = await auth.twoFactor.confirm(
      request.identity!.user,
      validated.value.code,
      auditContext(request),
    );
    if (result === 'invalid') {
      const error = validationError({ code: [t('two_factor.code_invalid')] }, t);
      return refuseForm(request, reply, error, (state) => render(request, state));
    }
    return done(
      request,
      reply,
      result === 'confirmed' ? 'two_factor.status_enabled' : 'two_factor.status_already',
    );
  });

  app.get('/user/two-factor-recovery-codes', { preHandler: confirmed }, async (request) => {
    const codes = await auth.twoFactor.recoveryCodes(request.identity!.user.id);
    if (codes === null) throw new NotEnrolledError();
    return codes;
  });

  app.post('/user/two-factor-recovery-codes', { preHandler: confirmed }, async (request, reply) => {
    if (!(await auth.twoFactor.regenerate(request.identity!.user.id, auditContext(request))))
      throw new NotEnrolledError();
    return done(request, reply, 'two_factor.status_regenerated');
  });
}

/** The key URI as an SVG QR code (medium error correction: still reads from a slightly blurred screen). */
function qrSvg(url: string): Promise<string> {
  return loadQrcode().toString(url, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
}
