import { setFlagsFromString } from 'node:v8';
import { ConfigError, loadConfig } from './config.ts';
import { migrateToLatest } from './db/migrator.ts';
import { trustProxyWarning } from './http/trust-proxy.ts';
import { preloadForRequests } from './lib/packages-on-demand.ts';
import { tightenDirectory } from './lib/private-files.ts';
import { nextSteps } from './next-steps.ts';
import { createServices } from './services.ts';

/** `npm start` / `gatehouse serve`: migrate, listen, and close gracefully on SIGTERM/SIGINT. */
export async function serve(): Promise<void> {
  // The old generation may grow 30 % past what survived the last full collection before the next one,
  // instead of up to 4 ×: under load about 10 MB/s of short-lived request objects outlive two young
  // collections, and V8's default let the heap reach 174 MiB of mostly garbage, the service 300 MiB
  // (docs/contributing/benchmarks.md "Memory"). Set here, not as a start flag, because NODE_OPTIONS
  // does not accept it and `gatehouse serve` is started without `npm start`'s flags.
  setFlagsFromString('--heap-growing-percent=30');
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  // storage/ (app key, logged mails, the default database) is the owner's alone (docs/security.md); one
  // made by an older version is tightened here, a missing one is made 0700 by whatever first needs it.
  tightenDirectory(config.storagePath);
  // MAIL_MAILER=log on an interactive terminal: a person is watching this process, not a log collector,
  // so each mail's link is printed there, whole and clickable, to verify an address or reset a password
  // without a mail server (docs/getting-started.md). Never into the JSON log lines, which are shipped and
  // kept (docs/guides/operations.md): a link in them would let whoever reads the logs take the account.
  // Not on a pipe either, which is where systemd, Docker or a supervisor collect output into logs.
  const mailLinksShown = config.mail.mailer === 'log' && process.stdout.isTTY === true;
  // The HTTP app is loaded once the configuration is known to be good: it brings the OpenID provider
  // library, which prints a warning on Node 20 as it loads (docs/guides/oidc-provider.md), and a bad
  // configuration is reported in one line alone.
  const { buildApp } = await import('./app.ts');
  const services = createServices(config, {
    mailTerminal: mailLinksShown ? (text) => process.stdout.write(text) : undefined,
  });
  await migrateToLatest(services.database.db);
  const app = await buildApp(services);
  const trustWarning = trustProxyWarning(config.trustProxy);
  if (trustWarning !== null) app.log.warn({ trustProxy: config.trustProxy }, trustWarning);
  // Asked before listening: from `listen` on, nothing here awaits, so a SIGTERM at any moment after it
  // (a process manager stopping a fresh start) meets the graceful shutdown below.
  const adminExists = (await services.admin.ownerId()) !== null;
  await preloadForRequests();
  await app.listen({ host: config.host, port: config.port });
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    // close() stops accepting, lets in-flight requests finish, then runs onClose hooks (DB, Redis).
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  // Mail, webhook events and back-channel logouts leave through their outboxes; the workers stop in app.close()
  // (services.close) before the database.
  services.outbox.start(app.log);
  services.webhooks.worker?.start(app.log);
  services.oauth.logouts.start(app.log);
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  process.stdout.write(
    `${config.appName} listening on http://${config.host}:${port} (APP_URL ${config.appUrl})\n`,
  );
  process.stdout.write(nextSteps(config, { adminExists, mailLinksShown }));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  serve().catch((error: unknown) => {
    process.stderr.write(`Failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
