// Passkeys in the browser (docs/guides/passkeys.md): the WebAuthn ceremonies of the account page and the login
// page. Bundled with @simplewebauthn/browser by esbuild when the sources are built (scripts/build.mjs) and
// served from our own origin as /assets/passkeys.js: the CSP allows no other script. The forms work as
// ordinary forms: this script only asks the browser for a passkey, puts its answer in the hidden
// `credential` field and submits, so success and failure come back as ordinary pages.
import {
  browserSupportsWebAuthn,
  browserSupportsWebAuthnAutofill,
  startAuthentication,
  startRegistration,
} from '@simplewebauthn/browser';

const jsonHeaders = { accept: 'application/json' };

function showError(form, message) {
  const box = form.querySelector('[data-passkey-error]');
  if (!box) return;
  box.textContent = message;
  box.hidden = false;
}

function submitWith(form, credential) {
  form.querySelector('input[name="credential"]').value = JSON.stringify(credential);
  form.dataset.passkeyReady = '1';
  form.submit();
}

/**
 * The dialog was closed, timed out or refused: say so, in the page's language (data-* attributes). A
 * SecurityError is the browser refusing passkeys for this page's address (opened at 127.0.0.1 while
 * APP_URL says localhost, say): the message names the address where they work, not "closed".
 */
function ceremonyError(form, error) {
  if (error?.name === 'AbortError') return;
  if (error?.name === 'SecurityError' && form.dataset.errorSecurity) {
    return showError(form, form.dataset.errorSecurity);
  }
  const exists = error?.name === 'InvalidStateError' && form.dataset.errorExists;
  showError(form, exists || form.dataset.errorCancelled);
}

// Account page: "Add a passkey". Options come from the password-confirmed JSON route; when the password
// confirmation has run out (423) the form is submitted as it is, and the server sends the browser to the
// confirmation form and back, as for any other confirmed action.
for (const form of document.querySelectorAll('form[data-passkey-register]')) {
  const button = form.querySelector('button[type="submit"]');
  if (!browserSupportsWebAuthn()) {
    form.querySelector('[data-passkey-unsupported]')?.removeAttribute('hidden');
    continue;
  }
  button.hidden = false;
  form.addEventListener('submit', async (event) => {
    if (form.dataset.passkeyReady === '1') return;
    event.preventDefault();
    // A missing name is the server's to report (beside the field): no dialog for a form that will fail.
    if (form.querySelector('input[name="name"]').value.trim() === '') return form.submit();
    let response;
    try {
      response = await fetch(form.dataset.options, { headers: jsonHeaders, credentials: 'same-origin' });
    } catch {
      return showError(form, form.dataset.errorFailed);
    }
    if (response.status === 423 || response.status === 401) return form.submit();
    if (!response.ok) return showError(form, form.dataset.errorFailed);
    try {
      submitWith(form, await startRegistration({ optionsJSON: await response.json() }));
    } catch (error) {
      ceremonyError(form, error);
    }
  });
}

// Login page: "Sign in with a passkey", and the browser's autofill (conditional UI) on the e-mail field.
const login = document.querySelector('[data-passkey-login]');
const loginForm = login?.querySelector('form');
if (loginForm && browserSupportsWebAuthn()) {
  login.hidden = false;
  const remember = document.querySelector('input[type="checkbox"][name="remember"]');
  const options = async () => {
    const response = await fetch(loginForm.dataset.options, {
      headers: jsonHeaders,
      credentials: 'same-origin',
    });
    if (!response.ok) throw new Error(`options: ${response.status}`);
    return response.json();
  };
  const signIn = (credential) => {
    loginForm.querySelector('input[name="remember"]').value = remember?.checked ? '1' : '';
    submitWith(loginForm, credential);
  };
  loginForm.addEventListener('submit', async (event) => {
    if (loginForm.dataset.passkeyReady === '1') return;
    event.preventDefault();
    let optionsJSON;
    try {
      optionsJSON = await options();
    } catch {
      return showError(loginForm, loginForm.dataset.errorFailed);
    }
    // Starting this ceremony aborts the waiting autofill one (the library's abort service).
    try {
      signIn(await startAuthentication({ optionsJSON }));
    } catch (error) {
      ceremonyError(loginForm, error);
    }
  });
  browserSupportsWebAuthnAutofill().then(async (supported) => {
    if (!supported) return;
    try {
      signIn(await startAuthentication({ optionsJSON: await options(), useBrowserAutofill: true }));
    } catch {
      // Aborted by the button, or no passkey picked: the page stays as it is.
    }
  });
}
