import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  commonPasswordCount,
  isCommonPassword,
  newPasswordField,
  PASSWORD_MAX_LENGTH,
} from '../../src/auth/passwords/password-policy.ts';
import { createI18n } from '../../src/i18n/i18n.ts';
import { ValidationError, validate } from '../../src/lib/validation.ts';

const t = createI18n('en', 'en').translator('en');
const schema = { password: newPasswordField() };

function errorOf(password: string, confirmation = password): string | undefined {
  try {
    validate({ password, password_confirmation: confirmation }, schema, t);
    return undefined;
  } catch (error) {
    assert.ok(error instanceof ValidationError);
    return error.errors['password']?.[0];
  }
}

test('the bundled common-password list is loaded offline and holds thousands of entries', () => {
  assert.ok(commonPasswordCount() >= 3000, `only ${commonPasswordCount()} entries`);
  assert.equal(isCommonPassword('password123'), true);
  assert.equal(isCommonPassword('PassWord123'), true, 'the check ignores case');
  assert.equal(isCommonPassword('tangerine-orbit-lattice-42'), false);
});

test('new passwords: 8–128 characters, confirmed, not common', () => {
  assert.equal(errorOf('short'), 'The password field must be at least 8 characters.');
  assert.equal(
    errorOf('x'.repeat(PASSWORD_MAX_LENGTH + 1)),
    'The password field must not be greater than 128 characters.',
  );
  assert.equal(
    errorOf('tangerine-orbit', 'tangerine-orbiT'),
    'The password field confirmation does not match.',
  );
  assert.equal(errorOf('tangerine-orbit', ''), 'The password field confirmation does not match.');
  assert.equal(
    errorOf('iloveyou1'),
    'The given password has appeared in a data leak. Please choose a different password.',
  );
  assert.equal(errorOf('tangerine-orbit'), undefined);
  assert.equal(errorOf('x'.repeat(PASSWORD_MAX_LENGTH)), undefined);
});
