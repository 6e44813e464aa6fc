/**
 * Hides credentials inside text that may quote a URL: the password of `scheme://user:password@host`
 * and the values of token-like query parameters (`?token=`, `&api_key=`, `sig=`...). Used on every
 * configuration error and start-up failure, because those quote what the operator wrote and end
 * up in terminals, CI logs and log collectors.
 *
 * It works on text, not on a parsed URL: the values that need it most are the ones that do not
 * parse (`smtps://user:pw@host:99999` is refused for its port). It errs towards hiding more: an `@`
 * later in the same word is taken as the end of a password.
 */
const USERINFO_PASSWORD = /([a-z][a-z0-9+.-]*:\/\/[^\s:@/?#"]*):[^\s@"]*@/gi;
const TOKEN_QUERY_VALUE =
  /([?&;][^=&#\s"]*(?:token|key|secret|pass(?:word|wd)?|pwd|auth|sig(?:nature)?|credential)[^=&#\s"]*=)[^&;#\s"]*/gi;

export const MASK = '***';

export function maskSecrets(text: string): string {
  return text.replace(USERINFO_PASSWORD, `$1:${MASK}@`).replace(TOKEN_QUERY_VALUE, `$1${MASK}`);
}
