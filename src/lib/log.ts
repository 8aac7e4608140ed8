/** The subset of pino's API that code outside the HTTP layer logs through (Fastify's app.log fits). */
export interface Log {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

export const silentLog: Log = { info() {}, warn() {}, error() {} };
