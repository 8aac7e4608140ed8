import type { User } from '../../users/user.ts';

/**
 * The panel-access check (Filament's canAccessPanel): the one place that decides who may enter
 * /admin. Default: the user's panel-access flag is set and the account is not disabled; with
 * PANEL_EMAIL_DOMAINS set, the address must also belong to one of those domains.
 */
export function panelAccessCheck(emailDomains: readonly string[]) {
  return function canAccessPanel(user: User): boolean {
    if (!user.panelAccess || user.disabledAt !== null) return false;
    if (emailDomains.length === 0) return true;
    const domain = user.email.slice(user.email.lastIndexOf('@') + 1);
    return emailDomains.includes(domain);
  };
}
