/**
 * Bounds how many expensive jobs run at once; the rest wait in FIFO order.
 * Password hashing uses it so a flood of logins queues instead of starving every other request of CPU.
 */
export class Semaphore {
  #active = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(readonly limit: number) {}

  get pending(): number {
    return this.#waiting.length;
  }

  async run<T>(job: () => Promise<T>): Promise<T> {
    if (this.#active >= this.limit) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.#active++;
    try {
      return await job();
    } finally {
      this.#active--;
      this.#waiting.shift()?.();
    }
  }
}
