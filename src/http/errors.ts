/**
 * Errors the HTTP layer raises; each carries a stable code and is turned into a response (JSON or
 * HTML) in exactly one place, plugins/errors.ts.
 */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    /** i18n key of the message, or a literal message when `literal` is set. */
    readonly messageKey: string,
    readonly headers: Record<string, string> = {},
    readonly params: Record<string, unknown> = {},
  ) {
    super(messageKey);
  }
}

/** No valid credentials for `guard`. JSON: 401; pages: redirect to that guard's login. */
export class AuthenticationError extends HttpError {
  constructor(
    readonly guard: string,
    /** The WWW-Authenticate value (bearer-challenge.ts). */
    challenge: string,
  ) {
    super(401, 'GH_UNAUTHENTICATED', 'auth.unauthenticated', { 'www-authenticate': challenge });
  }
}

export class MissingAbilityError extends HttpError {
  /** `challenge`: the WWW-Authenticate value (bearer-challenge.ts, error="insufficient_scope"). */
  constructor(challenge: string) {
    super(403, 'GH_MISSING_ABILITY', 'auth.invalid_ability', { 'www-authenticate': challenge });
  }
}

export class ForbiddenError extends HttpError {
  constructor(messageKey = 'auth.forbidden') {
    super(403, 'GH_FORBIDDEN', messageKey);
  }
}

export class NotFoundError extends HttpError {
  constructor() {
    super(404, 'GH_NOT_FOUND', 'http.not_found');
  }
}

/** A password-confirmed route without a recent confirmation (docs/guides/account.md): JSON clients get 423. */
export class PasswordConfirmationRequiredError extends HttpError {
  constructor() {
    super(423, 'GH_PASSWORD_CONFIRMATION_REQUIRED', 'account.password_confirmation_required');
  }
}

/** 405 with the methods the URL has (a form's `_method` naming none of them: http/form-methods.ts). */
export class MethodNotAllowedError extends HttpError {
  constructor(allowed: readonly string[]) {
    super(405, 'GH_METHOD_NOT_ALLOWED', 'http.method_not_allowed', { allow: allowed.join(', ') });
  }
}

export class CsrfError extends HttpError {
  constructor() {
    super(419, 'GH_CSRF_MISMATCH', 'http.csrf_mismatch');
  }
}

export class TooManyRequestsError extends HttpError {
  constructor(
    retryAfterSeconds: number,
    messageKey = 'http.too_many_attempts',
    params: Record<string, unknown> = {},
  ) {
    super(429, 'GH_TOO_MANY_ATTEMPTS', messageKey, { 'retry-after': String(retryAfterSeconds) }, params);
  }
}

export class UnsupportedMediaTypeError extends HttpError {
  constructor() {
    super(415, 'GH_UNSUPPORTED_MEDIA_TYPE', 'http.unsupported_media_type');
  }
}
