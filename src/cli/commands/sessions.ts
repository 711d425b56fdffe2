import type { CliContext } from '../context.js';

/** `sessions` and `sessions revoke <name>`: who is signed in through the identity provider, and signing someone out everywhere. */
export function addSessionCommands({ program, say, table, client, print, when }: CliContext): void {
  const sessions = program
    .command('sessions')
    .description('people signed in to the web UI through the identity provider: name, role, started, expires, last seen (admin; `sessions revoke <name>` signs one out everywhere)')
    .action(async () => {
      const c = client();
      const listed = await c.api.sessions();
      print(listed, () => {
        if (listed.items.length === 0) return say('Nobody is signed in.');
        table(
          ['NAME', 'ROLE', 'STARTED', 'EXPIRES', 'LAST SEEN'],
          listed.items.map((s) => [s.name, s.role, when(s.started_at, c), when(s.expires_at, c), when(s.last_seen, c)]),
        );
      });
    })
    .addHelpText(
      'after',
      '\nNeeds an admin token (EXPERTQ_TOKEN). The API behind it: GET /api/v1/sessions, and\n' +
        'DELETE /api/v1/sessions?name=<name> for `revoke`. A person signed out this way can sign in\n' +
        'again while the identity provider lets them: remove them from the groups there to keep them out.',
    );

  sessions
    .command('revoke <name>')
    .description('end every session of one person, on every browser and instance (the name as `expertq sessions` lists it); they can sign in again unless the identity provider stops them')
    .action(async (name: string) => {
      const result = await client().api.revokeSessions(name);
      print(result, () =>
        say(result.ended === 0
          ? `${name} had no live session; nothing ended. Names compare exactly, as \`expertq sessions\` lists them.`
          : `Ended ${result.ended} session${result.ended === 1 ? '' : 's'} of ${name}: their next request needs a new sign-in.`));
    });
}
