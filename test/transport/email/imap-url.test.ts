import { describe, expect, it } from 'vitest';
import { parseImapUrl } from '../../../src/transport/email/imap-url.js';

describe('parseImapUrl', () => {
  it('reads host, port and credentials, percent-decoded', () => {
    expect(parseImapUrl('imap://me%40acme.example:p%40ss%3Aword@mail.acme.example:1143')).toEqual({
      host: 'mail.acme.example',
      port: 1143,
      secure: false,
      user: 'me@acme.example',
      pass: 'p@ss:word',
    });
  });

  it('uses TLS and port 993 for imaps://, port 143 for imap://', () => {
    expect(parseImapUrl('imaps://u:p@imap.gmail.com')).toMatchObject({ secure: true, port: 993 });
    expect(parseImapUrl('imap://u:p@[::1]')).toMatchObject({ secure: false, port: 143, host: '::1' });
  });

  it.each([
    ['not a url', /not a URL/],
    ['https://u:secret@host', /imap:\/\/ or imaps:\/\//],
    ['imap://host', /user and a password/],
    ['imap://u@host', /user and a password/],
  ])('refuses %s without showing the password', (url, why) => {
    const message = (() => {
      try {
        parseImapUrl(url);
        return 'accepted';
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(message).toMatch(why);
    expect(message).not.toContain('secret');
  });
});
