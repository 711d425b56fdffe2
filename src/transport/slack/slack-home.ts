import type { App } from '@slack/bolt';
import type { Logger } from 'pino';
import type { Clock } from '../../clock.js';
import type { Inbound } from '../transport.js';
import { HOME_ACTION, homeView, notAnExpertView, readAwayForm, type FormValues } from './home-blocks.js';

/**
 * The bot's Home tab: published when an expert opens it, and again after each change they make there.
 * Mute and Unmute are the same replies as typing `mute` / `unmute`; the Away form and Back are the same
 * operation as the away API, set by the expert. A Slack user who is no expert sees a short note.
 */
export function listenForHome(app: App, handlers: () => Inbound, log: Logger, clock: Clock): void {
  const publish = async (userId: string, notice: string | null = null): Promise<void> => {
    const home = await handlers().home(userId);
    const view = home ? homeView(home, clock.now(), notice) : notAnExpertView();
    // Logged, not thrown: a throw would withhold the ack, and Slack would deliver the event again.
    await app.client.views.publish({ user_id: userId, view }).catch((error: unknown) => {
      log.warn({ err: error, expert_id: userId }, 'could not publish the Home tab');
    });
  };

  app.event('app_home_opened', async ({ event }) => {
    if (event.tab === 'home') await publish(event.user);
  });
  for (const [actionId, text] of [[HOME_ACTION.mute, 'mute'], [HOME_ACTION.unmute, 'unmute']] as const) {
    app.action({ type: 'block_actions', action_id: actionId }, async ({ ack, body }) => {
      await handlers().reply({ expertId: body.user.id, text, eventId: `action:${body.trigger_id}` });
      await publish(body.user.id);
      await ack();
    });
  }
  app.action({ type: 'block_actions', action_id: HOME_ACTION.away }, async ({ ack, body }) => {
    const form = readAwayForm((body.view?.state?.values ?? {}) as FormValues);
    const refused = 'problem' in form ? form.problem : await handlers().setAway(body.user.id, form);
    await publish(body.user.id, refused);
    await ack();
  });
  app.action({ type: 'block_actions', action_id: HOME_ACTION.back }, async ({ ack, body }) => {
    await publish(body.user.id, await handlers().setAway(body.user.id, null));
    await ack();
  });
}
