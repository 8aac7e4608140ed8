import { ARGON2_BOUNDS_TEXT } from '../../auth/passwords/password-strength.ts';
import type { ImportSummary } from './import.ts';
import type { Phase } from './tally.ts';

/** The closing report of import:laravel, one fact a line. */
export function formatSummary(summary: ImportSummary, tokenableType: string): string {
  const lines: string[] = [];
  const { users, tokens, collisions } = summary;
  const collided = collisions.reduce((n, c) => n + c.ids.length, 0);
  lines.push(
    `Users: ${users.found} in the Laravel database; ${counts(users, users.skips.total + collided, summary.dryRun)}.`,
  );
  for (const collision of collisions) {
    lines.push(
      `  not imported: ${collision.ids.length} accounts differ only in letter case: ${collision.email} (ids ${collision.ids.join(', ')})`,
    );
  }
  lines.push(...skipLines(users));
  if (users.unverifiable > 0) {
    lines.push(
      `  ${users.unverifiable} imported users have a password hash Gatehouse cannot verify (not bcrypt or argon2): they must reset their password.`,
    );
  }
  const { unreasonable } = users;
  if (unreasonable.count > 0) {
    lines.push(
      `  ${unreasonable.count} imported users have an argon2 hash with unreasonable parameters (allowed: ${ARGON2_BOUNDS_TEXT}; each login would hold a hashing thread for its whole cost): it was not copied, they must reset their password (ids ${unreasonable.ids.join(', ')}${unreasonable.count > unreasonable.ids.length ? ', …' : ''}).`,
    );
  }
  if (tokens === null) {
    lines.push('Tokens: the Laravel database has no personal_access_tokens table.');
  } else {
    lines.push(
      `Tokens of ${tokenableType}: ${tokens.found} in the Laravel database; ${counts(tokens, tokens.skips.total, summary.dryRun)}.`,
    );
    lines.push(...skipLines(tokens));
  }
  for (const other of summary.otherTokenables) {
    const tokensOf = `${other.count} token${other.count === 1 ? '' : 's'} of ${other.type}`;
    lines.push(`  not imported: ${tokensOf} (only ${tokenableType} tokens are)`);
  }
  const { granted, already } = summary.admins;
  if (granted.length > 0) {
    lines.push(`Panel access ${summary.dryRun ? 'would be granted' : 'granted'}: ${granted.join(', ')}`);
  }
  if (already.length > 0) lines.push(`Panel access already held: ${already.join(', ')}`);
  lines.push(
    summary.dryRun
      ? 'Dry run: nothing was written.'
      : 'Done: everything above was written in one transaction.',
  );
  return lines.join('\n');
}

function counts(phase: Phase, skipped: number, dryRun: boolean): string {
  return `${phase.imported} ${dryRun ? 'would be imported' : 'imported'}, ${phase.alreadyThere} imported before, ${skipped} not imported`;
}

function skipLines(phase: Phase): string[] {
  return phase.skips
    .entries()
    .map(
      ({ reason, count, ids }) =>
        `  not imported: ${count} because ${reason} (ids ${ids.join(', ')}${count > ids.length ? ', …' : ''})`,
    );
}
