// Gatehouse pages: progressive enhancement only. Every page and form works without this file; it is
// served from our own origin because the Content-Security-Policy allows no inline script.

// Show/hide password: the buttons are in the markup but `hidden` until this script can make them work.
for (const button of document.querySelectorAll('button[data-reveal]')) {
  const field = document.getElementById(button.getAttribute('data-reveal'));
  if (!field) continue;
  button.hidden = false;
  button.addEventListener('click', () => {
    const show = field.type === 'password';
    field.type = show ? 'text' : 'password';
    button.setAttribute('aria-pressed', String(show));
  });
}

// A shown password is hidden again on submit, so the browser never keeps it as ordinary form text.
document.addEventListener('submit', (event) => {
  for (const button of event.target.querySelectorAll('button[data-reveal][aria-pressed="true"]')) {
    const field = document.getElementById(button.getAttribute('data-reveal'));
    if (field) field.type = 'password';
    button.setAttribute('aria-pressed', 'false');
  }
});

// Escape closes an open "are you sure?" box (a <details>) and puts focus back on its button.
document.addEventListener('keydown', (event) => {
  if (event.key !== 'Escape') return;
  const active = document.activeElement;
  const open = active?.closest?.('details.confirm[open]') || document.querySelector('details.confirm[open]');
  if (!open) return;
  open.open = false;
  open.querySelector('summary')?.focus();
  event.preventDefault();
});

// Copy buttons (recovery codes, a setup key, a new token): hidden in the markup, shown once they can
// work. A list is copied one item per line, anything else as its text, or `data-copy-text` when the
// shown text is spaced for reading; the button says so for a moment (and to screen readers, via aria-live).
for (const button of document.querySelectorAll('button[data-copy]')) {
  const source = document.getElementById(button.getAttribute('data-copy'));
  if (!source || !navigator.clipboard) continue;
  button.hidden = false;
  button.setAttribute('aria-live', 'polite');
  const label = button.textContent;
  button.addEventListener('click', async () => {
    const items = [...source.querySelectorAll('li')].map((item) => item.textContent.trim());
    const text =
      button.getAttribute('data-copy-text') ??
      (items.length > 0 ? `${items.join('\n')}\n` : source.textContent.trim());
    await navigator.clipboard.writeText(text);
    button.textContent = button.getAttribute('data-copied');
    setTimeout(() => {
      button.textContent = label;
    }, 2000);
  });
}

// The account area: CSS shows the area holding the URL's #fragment (a form sends the browser back to
// /profile#<section>); this keeps the side navigation's "current" mark on that area too, and opens it
// where the browser cannot select by :has().
const accountAreas = document.querySelector('.account-areas');
if (accountAreas) {
  const serverOpen = accountAreas.querySelector('.account-area.open');
  const showArea = () => {
    const id = decodeURIComponent(location.hash.slice(1));
    const target = id ? document.getElementById(id) : null;
    const area = target?.closest('.account-area') ?? serverOpen;
    if (!area) return;
    for (const each of accountAreas.querySelectorAll('.account-area')) {
      each.classList.toggle('open', each === area);
    }
    for (const link of document.querySelectorAll('.account-nav a[data-area]')) {
      if (link.getAttribute('data-area') === area.getAttribute('data-area')) {
        link.setAttribute('aria-current', 'page');
      } else link.removeAttribute('aria-current');
    }
  };
  showArea();
  window.addEventListener('hashchange', showArea);
}

// Times (views/format.ts timeTag): the server writes UTC; here they become the reader's own time zone,
// "5 minutes ago" / "in 3 days" (data-relative, the exact local time in the tooltip) or a local date and
// time (data-local), in the page's language.
const lang = document.documentElement.lang || undefined;
const exact = new Intl.DateTimeFormat(lang, { dateStyle: 'long', timeStyle: 'short' });
const relative = new Intl.RelativeTimeFormat(lang, { numeric: 'auto' });
const UNITS = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
];
const fromNow = (when) => {
  const seconds = (when.getTime() - Date.now()) / 1000;
  if (Math.abs(seconds) < 45) return relative.format(0, 'second');
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size * 0.9 || unit === 'minute')
      return relative.format(Math.round(seconds / size), unit);
  }
};
for (const time of document.querySelectorAll('time[data-relative], time[data-local]')) {
  const when = new Date(time.getAttribute('datetime'));
  if (Number.isNaN(when.getTime())) continue;
  const local = exact.format(when);
  if (time.hasAttribute('data-relative')) {
    time.textContent = fromNow(when);
    time.title = local;
  } else time.textContent = local;
}

// Password strength (forms.ts passwordRules): a guide while typing a new password, never the judge —
// the server's rules decide. An estimate of the guesses it would take: the characters' variety to the
// power of the length, with repeats and runs (aaaa, 1234, abcd) counted once and a handful of the most
// common passwords marked weak whatever their shape. Read out only when the level changes.
const COMMON =
  /^(password|passwort|motdepasse|contraseña|qwerty|azerty|qwertz|letmein|welcome|iloveyou|admin|abc123|123456)/i;
const strengthOf = (password, min) => {
  if (password.length < min) return 0;
  if (COMMON.test(password.replace(/[^\p{L}\d]/gu, ''))) return 1;
  let pool = 0;
  if (/[a-z]/.test(password)) pool += 26;
  if (/[A-Z]/.test(password)) pool += 26;
  if (/\d/.test(password)) pool += 10;
  if (/[^\w\s]/.test(password)) pool += 33;
  if (/\s/.test(password)) pool += 1;
  if (/[^ -~\s]/.test(password)) pool += 100;
  let length = 0;
  for (let i = 0; i < password.length; i++) {
    const step = i === 0 ? 2 : password.charCodeAt(i) - password.charCodeAt(i - 1);
    length += Math.abs(step) <= 1 ? 0.25 : 1;
  }
  const bits = length * Math.log2(Math.max(pool, 2));
  return bits < 40 ? 1 : bits < 60 ? 2 : bits < 80 ? 3 : 4;
};
for (const meter of document.querySelectorAll('[data-strength]')) {
  const field = meter.closest('.field')?.querySelector('input');
  if (!field) continue;
  const min = Number(meter.getAttribute('data-min')) || 8;
  const text = meter.querySelector('.strength-text');
  let shown = -1;
  field.addEventListener('input', () => {
    meter.hidden = field.value === '';
    const level = field.value === '' ? -1 : strengthOf(field.value, min);
    meter.setAttribute('data-level', String(level));
    if (level !== shown && level >= 0) text.textContent = meter.getAttribute(`data-label-${level}`);
    shown = level;
  });
}
