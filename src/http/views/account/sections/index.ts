import type { AccountArea } from '../page.ts';
import { apiTokensSection } from './api-tokens.ts';
import { browserSessionsSection } from './browser-sessions.ts';
import { connectedAppsSection } from './connected-apps.ts';
import { dataExportSection } from './data-export.ts';
import { deleteAccountSection } from './delete-account.ts';
import { emailSection } from './email.ts';
import { linkedAccountsSection } from './linked-accounts.ts';
import { organizationsSection } from './organizations.ts';
import { passkeysSection } from './passkeys.ts';
import { passwordSection } from './password.ts';
import { profileInformationSection } from './profile-information.ts';
import { twoFactorSection } from './two-factor.ts';

/**
 * The account area (docs/guides/account.md): its side navigation in order, each entry a page with its
 * sections in order. A feature adds a section by writing its file here and naming it in one area (the
 * linked sign-in accounts of other providers after `passkeysSection`, connected OAuth apps after
 * `apiTokensSection`), or adds an area of its own (organizations) as one more entry;
 * docs/contributing/architecture.md has the walk-through. Titles: `account.area.<area id>` and
 * `account.section.<section id>` in i18n. The first area's page is /profile itself.
 */
export const ACCOUNT_AREAS: readonly AccountArea[] = [
  { id: 'profile', sections: [profileInformationSection, emailSection] },
  { id: 'security', sections: [passwordSection, twoFactorSection, passkeysSection, linkedAccountsSection] },
  { id: 'sessions', sections: [browserSessionsSection] },
  { id: 'tokens', sections: [apiTokensSection, connectedAppsSection] },
  { id: 'organizations', sections: [organizationsSection] },
  { id: 'data', sections: [dataExportSection, deleteAccountSection] },
];
