// A local OpenID provider, to try reviewer sign-in (docs/sign-in.md) without a real one:
//   node examples/oidc-provider.mjs        → issuer http://127.0.0.1:8780, client "expertq"
// PORT picks another port; EXPERTQ_URL (default http://127.0.0.1:8776) is where expertq runs, whose
// /auth/callback is the one redirect URL the client may use. Three people and no passwords: its
// sign-in page offers a button for each. It is oidc-provider (a dev dependency, so run `npm install`
// in the clone first) with an in-memory store and a key made at start: for trying things out only.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { URLSearchParams } from 'node:url';
import { exportJWK, generateKeyPair } from 'jose';
import Provider, { interactionPolicy } from 'oidc-provider';

const PORT = Number(process.env.PORT || 8780);
const ISSUER = `http://127.0.0.1:${PORT}`;
const EXPERTQ_URL = (process.env.EXPERTQ_URL || 'http://127.0.0.1:8776').replace(/\/+$/, '');
const CLIENT_ID = 'expertq';
const CLIENT_SECRET = 'local-provider-secret';

/** Who can sign in: the claims expertq reads are `email` (the name) and `groups` (the role). */
const PEOPLE = {
  rita: { email: 'rita@acme.example', name: 'Rita Reyes', groups: ['staff', 'expertq-reviewers'], role: 'reviewer' },
  omar: { email: 'omar@acme.example', name: 'Omar Haddad', groups: ['staff', 'expertq-admins'], role: 'admin' },
  nina: { email: 'nina@acme.example', name: 'Nina Berg', groups: ['staff', 'sales'], role: 'no role' },
};

// The sign-in page comes every time, even with a session here: after signing out of expertq, the
// next sign-in can pick someone else.
const { Check, base } = interactionPolicy;
const policy = base();
policy.get('login').checks.push(new Check('every_time', 'choose who signs in', (ctx) => (ctx.oidc.result?.login ? Check.NO_NEED_TO_PROMPT : Check.REQUEST_PROMPT)));

const { privateKey } = await generateKeyPair('RS256', { extractable: true });
const provider = new Provider(ISSUER, {
  clients: [{
    client_id: CLIENT_ID,
    client_secret: CLIENT_SECRET,
    redirect_uris: [`${EXPERTQ_URL}/auth/callback`],
    grant_types: ['authorization_code'],
    response_types: ['code'],
  }],
  jwks: { keys: [{ ...(await exportJWK(privateKey)), kid: 'local', alg: 'RS256', use: 'sig' }] },
  cookies: { keys: [randomBytes(32).toString('hex')] },
  // `groups` comes with every sign-in (scope openid), as a directory mapper would add it.
  claims: { openid: ['sub', 'groups'], email: ['email', 'email_verified'], profile: ['name'] },
  conformIdTokenClaims: false,
  features: { devInteractions: { enabled: false } },
  interactions: { policy, url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  findAccount: (_ctx, id) => {
    const person = PEOPLE[id];
    if (!person) return undefined;
    const { email, name, groups } = person;
    return { accountId: id, claims: () => ({ sub: id, email, email_verified: true, name, groups }) };
  },
});

/** The sign-in page: one button per person. */
function signInPage(uid) {
  const buttons = Object.entries(PEOPLE)
    .map(([id, p]) => `<p><button name="person" value="${id}">${p.name}</button> ${p.email}: groups ${p.groups.join(', ')} (${p.role} in expertq)</p>`)
    .join('\n');
  return `<!doctype html><meta charset="utf-8"><title>Local provider: sign in</title>
<h1>Sign in to the local provider</h1>
<form method="post" action="/interaction/${encodeURIComponent(uid)}/login">
${buttons}
</form>`;
}

async function readForm(req) {
  let text = '';
  for await (const chunk of req) text += chunk;
  return new URLSearchParams(text);
}

/** The login and consent steps: login is the button pressed; consent is granted at once. */
async function interaction(req, res) {
  const details = await provider.interactionDetails(req, res);
  if (details.prompt.name === 'login') {
    if (req.method !== 'POST') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(signInPage(details.uid));
      return;
    }
    const person = (await readForm(req)).get('person');
    if (!person || !PEOPLE[person]) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end(`Nobody called "${person}" here: press one of the buttons.`);
      return;
    }
    await provider.interactionFinished(req, res, { login: { accountId: person } }, { mergeWithLastSubmission: false });
    return;
  }
  const grant = new provider.Grant({ accountId: details.session.accountId, clientId: details.params.client_id });
  grant.addOIDCScope(String(details.params.scope));
  await provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
}

const handle = provider.callback();
createServer((req, res) => {
  if (!req.url.startsWith('/interaction/')) return handle(req, res);
  interaction(req, res).catch((error) => {
    res.writeHead(400, { 'content-type': 'text/plain' }).end(`Sign-in failed: ${error.message}. Start again from expertq's Sign in.`);
  });
}).listen(PORT, '127.0.0.1', () => {
  console.log(`Local OpenID provider: issuer ${ISSUER}, client_id ${CLIENT_ID}, client secret ${CLIENT_SECRET}`);
  console.log(`It sends people back to ${EXPERTQ_URL}/auth/callback only. Who can sign in (no passwords):`);
  for (const p of Object.values(PEOPLE)) console.log(`  ${p.email.padEnd(20)} groups ${p.groups.join(', ').padEnd(26)} ${p.role}`);
});
