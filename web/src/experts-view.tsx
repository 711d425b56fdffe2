import { useEffect, useState } from 'preact/hooks';
import { Unauthorized, type Api } from './api.js';
import { AwayForm, type AwayChoice } from './away-form.js';
import { dateTime } from './format.js';
import type { Expert } from './wire.js';

/**
 * The expert registry with live state, re-read every 5 s while shown. An admin can mute an expert (on
 * their behalf: holiday, overload; their open asks pass on along the escalation chain, after a confirm
 * step) and unmute them again, and set an expert away until a time with a delegate (their open asks
 * pass on at once) or end that early.
 */
export function ExpertsView(props: {
  api: Api;
  onUnauthorized: () => void;
  announce: (text: string, tone?: 'error') => void;
  isAdmin: boolean;
  /** Recorded as who muted (a named token mutes as itself on the server anyway). */
  mutedBy: string | null;
}) {
  const { api, onUnauthorized, announce } = props;
  const [experts, setExperts] = useState<Expert[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [awayFor, setAwayFor] = useState<string | null>(null);

  const failed = (e: unknown) => {
    if (e instanceof Unauthorized) return onUnauthorized();
    setError(e instanceof Error ? e.message : String(e));
  };

  useEffect(() => {
    const load = () => api.experts().then((list) => {
      setExperts(list);
      setError(null);
    }, failed);
    load();
    const timer = setInterval(load, 5_000);
    return () => clearInterval(timer);
  }, [api]);

  const unmute = async (expert: Expert) => {
    setBusy(expert.id);
    try {
      const updated = await api.unmute(expert.id);
      setExperts((list) => list && list.map((e) => (e.id === updated.id ? updated : e)));
      announce(`${expert.name} is unmuted and can be asked again.`);
    } catch (e) {
      if (e instanceof Unauthorized) return onUnauthorized();
      announce(`Could not unmute ${expert.name}: ${e instanceof Error ? e.message : String(e)}`, 'error');
    } finally {
      setBusy(null);
    }
  };

  const mute = async (expert: Expert) => {
    setBusy(expert.id);
    try {
      const updated = await api.mute(expert.id, props.mutedBy);
      setExperts((list) => list && list.map((e) => (e.id === updated.id ? updated : e)));
      announce(
        `${expert.name} is muted: no more questions until unmuted.${expert.open_asks ? ` Their ${expert.open_asks} open question${expert.open_asks === 1 ? ' was' : 's were'} passed on.` : ''}`,
      );
    } catch (e) {
      if (e instanceof Unauthorized) return onUnauthorized();
      announce(`Could not mute ${expert.name}: ${e instanceof Error ? e.message : String(e)}`, 'error');
    } finally {
      setBusy(null);
      setConfirming(null);
    }
  };

  const replace = (updated: Expert) => setExperts((list) => list && list.map((e) => (e.id === updated.id ? updated : e)));
  const nameOf = (id: string) => experts?.find((e) => e.id === id)?.name ?? id;

  const setAway = async (expert: Expert, choice: AwayChoice) => {
    setBusy(expert.id);
    try {
      const updated = await api.setAway(expert.id, choice);
      replace(updated);
      setAwayFor(null);
      const passed = expert.open_asks ? ` Their ${expert.open_asks} open question${expert.open_asks === 1 ? ' was' : 's were'} passed on.` : '';
      announce(`${expert.name} is away until ${dateTime(updated.away?.until ?? choice.until)}.${passed}`);
    } catch (e) {
      if (e instanceof Unauthorized) return onUnauthorized();
      announce(`Could not set ${expert.name} away: ${e instanceof Error ? e.message : String(e)}`, 'error');
    } finally {
      setBusy(null);
    }
  };

  const endAway = async (expert: Expert) => {
    setBusy(expert.id);
    try {
      replace(await api.endAway(expert.id));
      announce(`${expert.name} is back and can be asked again.`);
    } catch (e) {
      if (e instanceof Unauthorized) return onUnauthorized();
      announce(`Could not end ${expert.name}’s away: ${e instanceof Error ? e.message : String(e)}`, 'error');
    } finally {
      setBusy(null);
    }
  };

  return (
    <section aria-labelledby="experts-title">
      <div class="view-head">
        <h1 id="experts-title">Experts</h1>
        <p class="view-sub">Live state, refreshed every 5 seconds</p>
      </div>
      {error ? <p class="alert" role="alert">{error}</p> : null}
      {experts === null ? <p class="muted">Loading…</p> : experts.length === 0 ? (
        <div class="empty card"><h2>No experts configured</h2><p class="muted">Add them to the <code>experts:</code> section of the config file.</p></div>
      ) : (
        <div class="card table-card">
          <table class="experts" role="table">
            <caption class="sr-only">Experts with their topics and live state</caption>
            <thead role="rowgroup">
              <tr role="row">
                <th role="columnheader" scope="col">Expert</th>
                <th role="columnheader" scope="col">Topics</th>
                <th role="columnheader" scope="col">Escalates to</th>
                <th role="columnheader" scope="col">Asked on</th>
                <th role="columnheader" scope="col" class="num">Open asks</th>
                <th role="columnheader" scope="col" class="num">Asks today</th>
                <th role="columnheader" scope="col">State</th>
              </tr>
            </thead>
            <tbody role="rowgroup">
              {experts.map((e) => (
                <tr key={e.id} role="row">
                  <th role="rowheader" scope="row" data-label="Expert">{e.name} <code class="id">{e.id}</code></th>
                  <td role="cell" data-label="Topics">{e.topics.join(', ')}</td>
                  <td role="cell" data-label="Escalates to">{e.escalation_to ?? '—'}</td>
                  <td role="cell" data-label="Asked on">{e.reached_on.length > 0 ? e.reached_on.join(' → ') : <span class="status status-muted" title="No running channel reaches this expert: they are never asked">no channel</span>}</td>
                  <td role="cell" data-label="Open asks" class="num">{e.open_asks}</td>
                  <td role="cell" data-label="Asks today" class="num">{e.asks_today}</td>
                  <td role="cell" data-label="State">
                    {e.muted ? (
                      <span class="state-cell">
                        <span class="status status-muted">muted</span>
                        {props.isAdmin ? (
                          <button type="button" class="small" disabled={busy === e.id} onClick={() => unmute(e)} aria-label={`Unmute ${e.name}`}>
                            Unmute
                          </button>
                        ) : (
                          <span class="muted small-note">an admin can unmute</span>
                        )}
                      </span>
                    ) : confirming === e.id ? (
                      <span class="state-cell confirm" role="group" aria-label={`Confirm muting ${e.name}`}>
                        <span>
                          Mute {e.name}?{e.open_asks ? ` ${e.open_asks} open question${e.open_asks === 1 ? '' : 's'} will be passed on.` : ''}
                        </span>
                        <button type="button" class="small danger" disabled={busy === e.id} onClick={() => mute(e)}>Mute</button>
                        <button type="button" class="small" onClick={() => setConfirming(null)}>Cancel</button>
                      </span>
                    ) : awayFor === e.id ? (
                      <AwayForm expert={e} experts={experts} busy={busy === e.id} onSave={(choice) => setAway(e, choice)} onCancel={() => setAwayFor(null)} />
                    ) : e.away ? (
                      <span class="state-cell away">
                        <span class="status status-away">away</span>
                        <span class="small-note">
                          until {dateTime(e.away.until)}
                          {e.away.delegate_to ? `; ${nameOf(e.away.delegate_to)} is asked instead` : ''}
                          {e.away.note ? ` (${e.away.note})` : ''}
                        </span>
                        {props.isAdmin ? (
                          <button type="button" class="small" disabled={busy === e.id} onClick={() => endAway(e)} aria-label={`End ${e.name}’s away`}>
                            End away
                          </button>
                        ) : null}
                      </span>
                    ) : (
                      <span class="state-cell">
                        <span class="status status-available">available</span>
                        {props.isAdmin ? (
                          <>
                            <button type="button" class="small" onClick={() => setConfirming(e.id)} aria-label={`Mute ${e.name}…`}>Mute…</button>
                            <button type="button" class="small" onClick={() => setAwayFor(e.id)} aria-label={`Set ${e.name} away…`}>Away…</button>
                          </>
                        ) : null}
                      </span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
