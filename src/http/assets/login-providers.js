// "Continue with …" on /login and /register (docs/guides/login-providers.md): the sign-in starts at
// /auth/{provider}, which takes the page's "Remember me" as remember=1. Without script the links work
// as they are, without remember-me.
document.addEventListener('click', (event) => {
  const link = event.target instanceof Element ? event.target.closest('a[data-provider-login]') : null;
  if (link === null) return;
  const box = document.querySelector('input[type="checkbox"][name="remember"]');
  const url = new URL(link.href);
  if (box?.checked) url.searchParams.set('remember', '1');
  else url.searchParams.delete('remember');
  link.href = url.href;
});
