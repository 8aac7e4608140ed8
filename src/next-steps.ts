import { isAbsolute, join, relative } from 'node:path';
import type { Config } from './config.ts';
import { relyingParty } from './passkeys/relying-party.ts';

/** What the server knows at start that decides which next steps apply. */
export interface StartFacts {
  /** make:admin has run on this database (there is an owner). */
  readonly adminExists: boolean;
  /** Each mail's link is shown on this terminal (server.ts: MAIL_MAILER=log on an interactive terminal). */
  readonly mailLinksShown: boolean;
}

/**
 * The lines `npm start` prints under "listening" (docs/getting-started.md): what to do next, and only
 * what applies — the admin to create while there is none, where mail goes, and why passkeys will not
 * work when APP_URL names an IP address. Plain text for a person at a terminal, not a log line.
 */
export function nextSteps(config: Config, facts: StartFacts, cwd = process.cwd()): string {
  const lines: string[] = [];
  if (!facts.adminExists) {
    lines.push(
      'Create the first admin: npx gatehouse make:admin',
      `  (then sign in to the panel at ${config.appUrl}/admin/login)`,
    );
  }
  lines.push(`Open ${config.appUrl} to sign up or log in.`);
  lines.push(...mailLines(config, facts, cwd));
  const party = relyingParty(config.appUrl, config.appName);
  if (!party.usable) {
    const host = party.id;
    const localhost = new URL(config.appUrl);
    localhost.hostname = 'localhost';
    lines.push(
      `Passkeys are off: browsers refuse an IP address (${host}) as a passkey domain.`,
      `  Use a host name in APP_URL, e.g. APP_URL=${localhost.origin}`,
    );
  }
  return `\nNext steps:\n${lines.map((line) => (line.startsWith('  ') ? line : `- ${line}`)).join('\n')}\n\n`;
}

function mailLines(config: Config, facts: StartFacts, cwd: string): string[] {
  const { mail } = config;
  if (mail.mailer === 'smtp') {
    return [`Mail goes out through ${mail.host}:${mail.port} from ${mail.fromAddress} (MAIL_MAILER=smtp).`];
  }
  const absolute = join(config.storagePath, 'mail');
  const near = relative(cwd, absolute);
  const folder = near === '' || near.startsWith('..') || isAbsolute(near) ? absolute : near;
  return [
    `Mail is not sent (MAIL_MAILER=log): each mail is written to ${folder}/.`,
    facts.mailLinksShown
      ? '  Its link (verify, reset, …) is printed here as it goes out.'
      : '  Set MAIL_MAILER=smtp and MAIL_HOST to send it.',
  ];
}
