import { expect } from 'vitest';
import { EXAMPLE_EXPERTS } from './build-test-app.js';
import type { Harness } from './channel-harness.js';
import { personalConversationId, type TeamsUser } from './teams-activities.js';
import { startTeamsKit } from './teams-kit.js';

/** An ask card's button as the card carries it. */
interface CardAction {
  title: string;
  verb: string;
  data: { ask_id: string; elements: string[] };
}

/**
 * The channel contract suite on Microsoft Teams: a real server with the Teams channel against the fake
 * Microsoft services. Every expert installs the app first (so their personal conversation is known);
 * an ask is the Adaptive Card posted there, read as its text blocks before the answer box. A reply is,
 * `by: 'card'`, a press on that card (Skip or Mute for `skip` and `mute`, else Answer with the text in
 * the box) or, `by: 'chat'`, the text typed in the personal chat (the suite never leaves an expert with
 * two open asks when they reply, so a typed reply is always theirs to give). Either way the ask's card
 * is then replaced by one with no buttons.
 */
export async function teamsHarness(config: Record<string, unknown> = {}, by: 'card' | 'chat' = 'card'): Promise<Harness> {
  const kit = await startTeamsKit({
    config,
    experts: (people) => EXAMPLE_EXPERTS.map((e) => ({ ...e, teams: people[e.id as 'dana' | 'lee' | 'sam'].aadObjectId })),
  });
  const users: Record<string, TeamsUser> = { dana: kit.people.dana, lee: kit.people.lee, sam: kit.people.sam };
  try {
    for (const user of Object.values(users)) expect((await kit.post(kit.fake.activities.installation(user))).status).toBe(200);
  } catch (error) {
    await kit.close();
    throw error;
  }
  const posts = (id: string) => kit.fake.callsTo(personalConversationId(users[id]!)).filter((c) => c.method === 'POST');
  const askPosts = (id: string) => posts(id).filter((c) => Array.isArray(c.body.attachments?.[0]?.content?.actions));
  const cardOf = (post: { body: { attachments: Array<{ content: { body: Array<Record<string, unknown>>; actions: CardAction[] } }> } }) => post.body.attachments[0]!.content;
  return {
    ids: { dana: 'dana', lee: 'lee', sam: 'sam' },
    call: (method, path, body) => kit.call(method, path, body),
    asksTo: (id) =>
      askPosts(id).map((post) => {
        const body = cardOf(post).body;
        const beforeBox = body.slice(0, body.findIndex((b) => b.type === 'Input.Text'));
        const texts = beforeBox.map((b) => {
          expect(b.type).toBe('RichTextBlock');
          return (b.inlines as Array<{ text: string }>).map((i) => i.text).join('');
        });
        // The activity's text (notifications, screen readers) carries the same elements, in the same order.
        expect(post.body.text).toBe(texts.join('\n\n'));
        return texts;
      }),
    noticesTo: (id) => posts(id).filter((c) => !c.body.attachments).map((c) => c.body.text as string),
    async reply(expertId, text, requestId) {
      const request = await kit.call('GET', `/api/v1/requests/${requestId}`);
      const ask = (request.body.asks as Array<{ id: string; expert_id: string }>).findLast((a) => a.expert_id === expertId)!;
      const post = askPosts(expertId).find((c) => cardOf(c).actions[0]!.data.ask_id === ask.id);
      expect(post, `an ask card for ${ask.id}`).toBeDefined();
      const user = users[expertId]!;
      if (by === 'chat') {
        expect((await kit.post(kit.fake.activities.message(user, text))).status).toBe(200);
        const updates = kit.fake.callsTo(personalConversationId(user)).filter((c) => c.method === 'PUT' && c.activityId === post!.created);
        expect(updates.at(-1)?.body.attachments[0].content.actions, 'the ask card is replaced by one without buttons').toBeUndefined();
        expect(updates.length).toBeGreaterThan(0);
        return;
      }
      const button = cardOf(post!).actions.find((a) => a.title === (text === 'skip' ? 'Skip' : text === 'mute' ? 'Mute' : 'Answer'))!;
      const data = button.title === 'Answer' ? { ...button.data, answer: text } : button.data;
      const pressed = await kit.post(kit.fake.activities.cardAction(user, { verb: button.verb, data, replyToId: post!.created! }));
      expect(pressed.status).toBe(200);
      // The reply was taken: the card that replaces the ask has no buttons left.
      expect(pressed.body.value.actions).toBeUndefined();
    },
    async advance(ms) {
      kit.clock.advance(ms);
      await kit.server.service.tick();
      await kit.settle();
    },
    close: () => kit.close(),
  };
}
