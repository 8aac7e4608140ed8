/**
 * Bounds how many expensive jobs run at once; the rest wait in FIFO order.
 * Password hashing uses it so a flood of logins queues instead of starving every other request of CPU;
 * the SQLite driver uses one of size 1 to take turns on its single connection.
 */
export class Semaphore {
  #active = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(readonly limit: number) {}

  get pending(): number {
    return this.#waiting.length;
  }

  get active(): number {
    return this.#active;
  }

  /** Resolves once a slot is held; every acquire() must be paired with one release(). */
  acquire(): Promise<void> {
    if (this.#active < this.limit) {
      this.#active++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => this.#waiting.push(resolve));
  }

  /**
   * Hands the slot straight to the longest waiter (it stays counted as active), so a newcomer can
   * never slip in between and exceed the limit, and only that one waiter is woken.
   */
  release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#active--;
  }

  async run<T>(job: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await job();
    } finally {
      this.release();
    }
  }
}
