import { codeAt, stepAt } from '../../src/two-factor/totp.ts';
import type { TestApp } from './app.ts';

/** The middle of a 30-second TOTP step: codes computed now stay those of one step for 15 s either way. */
export function midStep(ms = Date.now()): number {
  return stepAt(ms) * 30_000 + 15_000;
}

export interface Enrolled {
  readonly secret: string;
  readonly recoveryCodes: string[];
  /** The current code (at the app's clock). */
  code(offsetSteps?: number): string;
}

/**
 * Two-factor turned on for `user` through the use cases (the routes are tested on their own): start,
 * read the secret, confirm with the current code. That code's step is spent by the confirmation.
 */
export async function enableTwoFactor(ctx: TestApp, user: { id: number; email: string }): Promise<Enrolled> {
  const { auth, clock } = ctx.services;
  const audit = { ip: '127.0.0.1', now: clock.now(), actorId: user.id };
  await auth.twoFactor.start(user.id, audit);
  const setup = await auth.twoFactor.setup(user);
  if (setup === null) throw new Error('enrolment did not start');
  const full = await auth.providerOf('web').retrieveById(user.id);
  if (full === null) throw new Error('no such user');
  const confirmed = await auth.twoFactor.confirm(full, codeAt(setup.secret, clock.now()), audit);
  if (confirmed !== 'confirmed') throw new Error(`confirmation failed: ${confirmed}`);
  return {
    secret: setup.secret,
    recoveryCodes: (await auth.twoFactor.recoveryCodes(user.id)) ?? [],
    code: (offsetSteps = 0) => codeAt(setup.secret, clock.now() + offsetSteps * 30_000),
  };
}
