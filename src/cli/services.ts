import type { AuditContext } from '../audit/audit.ts';
import { type Config, loadConfig } from '../config.ts';
import { migrateToLatest } from '../db/migrator.ts';
import { createServices, type Services } from '../services.ts';
import type { CommandIO } from './command.ts';

/**
 * Runs a command's work over the same services the server builds (config from the command's
 * environment and working directory, the same clock, hasher and use cases), closing them afterwards.
 * `migrate: true` applies pending migrations first, for commands that write; `config`, one the command
 * already loaded (to fail on a bad one before asking anything).
 */
export async function withServices<T>(
  io: CommandIO,
  work: (services: Services) => Promise<T>,
  options: { migrate?: boolean; config?: Config } = {},
): Promise<T> {
  const services = createServices(options.config ?? loadConfig(io.env, { cwd: io.cwd }));
  try {
    if (options.migrate) await migrateToLatest(services.database.db);
    return await work(services);
  } finally {
    await services.close();
  }
}

/**
 * What a command's changes are audited with: no actor, no address. Its webhook events are written like
 * the server's, whether or not the command's environment has WEBHOOK_URLS: the running service delivers
 * them to its own endpoints (docs/guides/webhooks.md).
 */
export function commandAudit(services: Pick<Services, 'clock' | 'webhooks'>): AuditContext {
  return { actorId: null, ip: null, now: services.clock.now(), webhooks: services.webhooks.commandSink };
}
