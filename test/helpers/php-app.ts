import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { accepts } from './proxies.ts';
import { freePort } from './smtp-sink.ts';

/**
 * The app of issue 27's report: PHP behind the proxy, reading the user from $_SERVER, where
 * `X-Auth-User-Id`, `X_Auth_User_Id` and `X.Auth.User.Id` are all HTTP_X_AUTH_USER_ID and the last one
 * wins. PHP's built-in web server (php-cli) answers every path with the four variables as JSON.
 */
const ROUTER = `<?php
header('Content-Type: application/json');
$user = [];
foreach (['ID', 'EMAIL', 'NAME', 'VERIFIED'] as $part) {
    $user[$part] = $_SERVER['HTTP_X_AUTH_USER_' . $part] ?? null;
}
echo json_encode(['php' => PHP_VERSION, 'user' => $user]);
`;

export interface PhpApp {
  readonly port: number;
  close(): Promise<void>;
}

export async function startPhpApp(): Promise<PhpApp> {
  const folder = mkdtempSync(join(tmpdir(), 'gatehouse-php-app-'));
  writeFileSync(join(folder, 'router.php'), ROUTER);
  const port = await freePort();
  const child = spawn('php', ['-S', `127.0.0.1:${port}`, join(folder, 'router.php')], {
    cwd: folder,
    stdio: 'ignore',
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(folder, { recursive: true, force: true });
  };
  const deadline = Date.now() + 15_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await close();
      throw new Error(`php -S did not start on port ${port}`);
    }
    await sleep(50);
  }
  return { port, close };
}
