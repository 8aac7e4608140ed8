import type { Translate } from '../../i18n/i18n.ts';
import { type Html, html } from '../../lib/html.ts';

/**
 * Why a sign-in at a provider ended back on /login (docs/guides/login-providers.md). The callback sends
 * the browser to `/login?sign_in_error=<reason>&provider=<name>`, so a failure stores nothing (guests
 * cost nothing, docs/security.md) and the page shows only texts of its own: an unknown reason or
 * provider shows nothing.
 */
export const SIGN_IN_FAILURES = [
  'denied',
  'failed',
  'unavailable',
  'no_email',
  'link_first',
  'provider_taken',
  'refused',
  'no_account',
] as const;
export type SignInFailure = (typeof SIGN_IN_FAILURES)[number];

export function signInFailurePath(reason: SignInFailure, provider: string): string {
  return `/login?${new URLSearchParams({ sign_in_error: reason, provider })}`;
}

/** A provider as the login pages show it. */
export interface ProviderChoice {
  readonly name: string;
  readonly label: string;
}

/** The translated failure a /login request's query names (`labelOf` a configured provider), or null. */
export function signInFailureMessage(
  t: Translate,
  query: Record<string, unknown>,
  labelOf: (name: string) => string | undefined,
): string | null {
  const reason = query['sign_in_error'];
  const name = query['provider'];
  if (typeof reason !== 'string' || !(SIGN_IN_FAILURES as readonly string[]).includes(reason)) return null;
  if (typeof name !== 'string') return null;
  const label = labelOf(name);
  if (label === undefined) return null;
  return t(`identities.failure.${reason}`, { provider: label });
}

/** The failure as the login page shows it: an alert above the form. */
export function signInFailureAlert(message: string | null): Html {
  return message === null ? html`` : html`<div class="notice" role="alert"><p>${message}</p></div>`;
}

/**
 * "Continue with …" for each provider that can be used now (an OpenID provider whose discovery
 * document could not be read has no button until it can). Plain links: /assets/login-providers.js adds
 * `remember=1` when "Remember me" is ticked on the same page.
 */
export function providerButtons(t: Translate, providers: readonly ProviderChoice[]): Html | null {
  if (providers.length === 0) return null;
  return html`<div class="login-providers">
    <p class="divider"><span>${t('passkeys.or')}</span></p>
    <ul class="provider-list">
      ${providers.map((provider) => html`<li><a class="button secondary block" href="/auth/${provider.name}" data-provider-login>${t('identities.continue_with', { provider: provider.label })}</a></li>`)}
    </ul>
  </div>`;
}
