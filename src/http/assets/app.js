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
