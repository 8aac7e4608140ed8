import type { AccountSection } from '../page.ts';
import { apiTokensSection } from './api-tokens.ts';
import { browserSessionsSection } from './browser-sessions.ts';
import { dataExportSection } from './data-export.ts';
import { deleteAccountSection } from './delete-account.ts';
import { emailSection } from './email.ts';
import { passkeysSection } from './passkeys.ts';
import { passwordSection } from './password.ts';
import { profileInformationSection } from './profile-information.ts';
import { twoFactorSection } from './two-factor.ts';

/**
 * The sections of /profile, in the order docs/guides/account.md lists them. A feature adds its own file here
 * and one line in this list: two-factor authentication (issue 17) goes right after `passwordSection`,
 * passkeys (issue 18) after it. Each section's title is `account.section.<id>` in i18n.
 */
export const ACCOUNT_SECTIONS: readonly AccountSection[] = [
  profileInformationSection,
  passwordSection,
  twoFactorSection,
  passkeysSection,
  emailSection,
  browserSessionsSection,
  apiTokensSection,
  dataExportSection,
  deleteAccountSection,
];
