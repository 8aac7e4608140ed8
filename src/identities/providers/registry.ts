import type { LoginProviderConfig } from '../../config/login-providers.ts';
import { SECOND } from '../../lib/clock.ts';
import type { Log } from '../../lib/log.ts';
import { GithubProvider } from './github.ts';
import { OpenIdProvider } from './openid.ts';
import type { UpstreamProvider } from './upstream-provider.ts';

/** Waits between discovery attempts of a provider that could not be reached: then every 5 minutes. */
const RETRY_DELAYS_MS = [5, 15, 30, 60, 120, 300].map((s) => s * SECOND);

/**
 * The configured login providers (LOGIN_PROVIDERS), in their configured order. start() reads every
 * OpenID provider's discovery document; one that cannot be reached is logged, its button stays hidden
 * (`available`), and it is tried again in the background until it answers (and whenever someone asks
 * for it at /auth/{provider}).
 */
export class LoginProviders {
  readonly #providers: readonly UpstreamProvider[];
  readonly #timers = new Set<NodeJS.Timeout>();
  #first: Promise<void> = Promise.resolve();
  #stopped = false;

  constructor(configs: readonly LoginProviderConfig[]) {
    this.#providers = configs.map((config) =>
      config.kind === 'github' ? new GithubProvider(config) : new OpenIdProvider(config),
    );
  }

  /** The provider named `name` in LOGIN_PROVIDERS, ready or not; undefined when there is none. */
  get(name: string): UpstreamProvider | undefined {
    return this.#providers.find((provider) => provider.name === name);
  }

  /** The providers whose buttons are shown now. */
  get available(): readonly UpstreamProvider[] {
    return this.#providers.filter((provider) => provider.ready);
  }

  get all(): readonly UpstreamProvider[] {
    return this.#providers;
  }

  /** Starts discovery (not waited for: a provider that is down must not delay the start). */
  start(log: Log): void {
    this.#first = Promise.all(this.#providers.map((provider) => this.#discover(provider, log, 0))).then(
      () => {},
    );
  }

  /** Resolves when every provider's first discovery attempt has ended (tests, the first page). */
  settled(): Promise<void> {
    return this.#first;
  }

  async #discover(provider: UpstreamProvider, log: Log, failures: number): Promise<void> {
    if (this.#stopped) return;
    if (await provider.prepare()) {
      if (failures > 0) log.info({ provider: provider.name }, 'login provider reached: its button is shown');
      return;
    }
    if (this.#stopped) return;
    const delay = RETRY_DELAYS_MS[Math.min(failures, RETRY_DELAYS_MS.length - 1)]!;
    const reason = provider instanceof OpenIdProvider ? provider.lastError : null;
    log.warn(
      { provider: provider.name, reason, retryInSeconds: delay / SECOND },
      'login provider unreachable: its button is hidden until its discovery document can be read',
    );
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      void this.#discover(provider, log, failures + 1);
    }, delay);
    timer.unref();
    this.#timers.add(timer);
  }

  stop(): void {
    this.#stopped = true;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }
}
