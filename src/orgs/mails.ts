import type { MailMessage } from '../mail/message.ts';
import { build, type MailContext, type Recipient } from '../mail/messages.ts';

/**
 * An organization's invitation (docs/guides/organizations.md). It names the organization — the text is
 * escaped like every mail's (mail/layout.ts) — but neither the person who sent it nor any other
 * user-chosen name (docs/security.md): the address may be anyone's, and the mail must not carry an
 * inviter's words to a stranger under our brand. Its link is a secret (redacted from logs).
 */
export function orgInvitationMessage(
  context: MailContext,
  to: Omit<Recipient, 'name'>,
  invitation: {
    organization: string;
    role: string;
    url: string;
    token: string;
    signature: string;
    expiresInMinutes: number;
  },
): MailMessage {
  return build(context, 'org-invitation', to, [invitation.token, invitation.signature], (t) => ({
    subject: t('orgs.mail.subject', { app: context.brand.appName }),
    intro: [
      t('orgs.mail.intro', {
        organization: invitation.organization,
        app: context.brand.appName,
        role: t(`orgs.roles.${invitation.role}`, { defaultValue: invitation.role }),
      }),
      t('orgs.mail.account'),
    ],
    action: { label: t('orgs.mail.action'), url: invitation.url },
    outro: [t('orgs.mail.expiry', { count: invitation.expiresInMinutes }), t('orgs.mail.outro')],
  }));
}
