import { type Html, html } from '../../../lib/html.ts';
import type { InvitationStatus } from '../../../orgs/invitations.ts';
import { csrfField } from '../../views/forms.ts';
import { type OrgView, orgFrame, roleLabel } from './frame.ts';

/** The link's parts, carried into the acceptance form as they came. */
export interface LinkFields {
  readonly id: string;
  readonly token: string;
  readonly expires: string;
  readonly signature: string;
}

/**
 * GET /org-invitations/{id}: what the link offers and an Accept button, or why it cannot be accepted
 * by this account (another address, an address not verified yet, a used, cancelled, expired or forged
 * link). Nothing changes until the form is sent.
 */
export function invitationPage(view: OrgView, status: InvitationStatus, link: LinkFields): Html {
  const t = view.request.t;
  if (status.status !== 'open') {
    const verify =
      status.status === 'unverified'
        ? html`<p><a class="button small" href="/email/verify">${t('pages.verify_email')}</a></p>`
        : '';
    return orgFrame(view, {
      title: t('orgs.invitation.title'),
      heading: t('orgs.invitation.title'),
      body: html`<section class="card narrow">
  <div class="notice" role="alert"><p>${t(`orgs.invitation.${status.status}`)}</p></div>
  ${verify}
  <p><a href="/orgs">${t('orgs.back_to_list')}</a></p>
</section>`,
    });
  }
  const { organization } = status;
  return orgFrame(view, {
    title: t('orgs.invitation.title'),
    heading: t('orgs.invitation.heading', { name: organization.name }),
    body: html`<section class="card narrow">
  <p>${t('orgs.invitation.offer', { name: organization.name, role: roleLabel(t, organization.role) })}</p>
  <form method="post" action="/org-invitations/${link.id}">
    ${csrfField(view.csrfToken)}
    <input type="hidden" name="token" value="${link.token}">
    <input type="hidden" name="expires" value="${link.expires}">
    <input type="hidden" name="signature" value="${link.signature}">
    <div class="actions"><button type="submit" class="button">${t('orgs.invitation.accept')}</button> <a class="button secondary" href="/orgs">${t('orgs.invitation.not_now')}</a></div>
  </form>
</section>`,
  });
}
