import { type AuditContext, recordAudit } from '../audit/audit.ts';
import type { User } from '../users/user.ts';
import { queuePasskeyNotice } from './mails.ts';
import type { PasskeyDeps } from './passkey-deps.ts';
import { deletePasskeyRow, findOwnPasskey, renamePasskey as renameRow } from './passkeys.repository.ts';

/** PUT /user/passkeys/{id}: a new name. 'not_found' for an id that is not one of the user's passkeys. */
export async function renamePasskey(
  deps: PasskeyDeps,
  userId: number,
  passkeyId: number,
  name: string,
  audit: AuditContext,
): Promise<'renamed' | 'not_found'> {
  return deps.db.transaction().execute(async (trx) => {
    const passkey = await findOwnPasskey(trx, userId, passkeyId);
    if (passkey === undefined || !(await renameRow(trx, userId, passkeyId, name, audit.now)))
      return 'not_found';
    await recordAudit(trx, 'passkey.renamed', audit, userId, {
      passkey_id: passkeyId,
      from: passkey.name,
      name,
    });
    return 'renamed';
  });
}

/**
 * DELETE /user/passkeys/{id}, or an admin on the panel's user page (`by: 'admin'`, audited as
 * admin.passkey.deleted with the admin as actor; docs/guides/admin-panel.md): the passkey stops working
 * at once (the next sign-in finds no row); the owner is told by mail either way, so a removal they did not
 * make does not go unnoticed. Sessions are left as they are, as with every passkey removal
 * (docs/guides/passkeys.md). 'not_found' for an id that is not one of the user's passkeys.
 */
export async function deletePasskey(
  deps: PasskeyDeps,
  user: Pick<User, 'id' | 'email' | 'name' | 'locale' | 'emailVerifiedAt'>,
  passkeyId: number,
  audit: AuditContext,
  by: 'user' | 'admin' = 'user',
): Promise<'deleted' | 'not_found'> {
  const result = await deps.db.transaction().execute(async (trx) => {
    const passkey = await findOwnPasskey(trx, user.id, passkeyId);
    // The DELETE decides: of two concurrent deletions one finds the row gone and answers 404.
    if (passkey === undefined || !(await deletePasskeyRow(trx, user.id, passkeyId))) return 'not_found';
    const event = by === 'admin' ? 'admin.passkey.deleted' : 'passkey.deleted';
    await recordAudit(trx, event, audit, user.id, { passkey_id: passkeyId, name: passkey.name });
    await queuePasskeyNotice(trx, deps.mailing, user, {
      event: 'removed',
      passkeyName: passkey.name,
      at: audit.now,
    });
    return 'deleted';
  });
  if (result === 'deleted') deps.mailing.queue.wake();
  return result;
}
