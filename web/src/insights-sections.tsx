import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { duration, percent } from './insight-format.js';
import { OutcomeChart, ReuseChart, TimesChart } from './insights-charts.js';
import type { InsightsData } from './insights-data.js';
import { DataTable, expertColumns, OUTCOME_COLUMNS, REUSE_COLUMNS, TIME_COLUMNS, TOPIC_COLUMNS } from './insights-tables.js';
import type { InsightFigures } from './wire.js';

/** How many topics show before "Show all": the CSV always has every one. */
const TOP_TOPICS = 10;

function Section(props: { id: string; title: string; sub: string; children: ComponentChildren }) {
  return (
    <section class="card insight-section" aria-labelledby={props.id}>
      <h2 id={props.id}>{props.title}</h2>
      <p class="muted">{props.sub}</p>
      {props.children}
    </section>
  );
}

/** The window's totals at a glance. */
export function Headline(props: { total: InsightFigures }) {
  const t = props.total;
  const fact = (label: string, value: string, note?: string) => (
    <div class="fact">
      <dt>{label}</dt>
      <dd><strong>{value}</strong>{note ? <span class="muted"> {note}</span> : null}</dd>
    </div>
  );
  return (
    <dl class="card headline" aria-label="Totals of the window">
      {fact('Submitted', String(t.requests.submitted))}
      {fact('Accepted', String(t.requests.accepted))}
      {fact('Rejected', String(t.requests.rejected))}
      {fact('Failed', String(t.requests.failed), t.requests.failed_by_reason.cancelled ? `(${t.requests.failed_by_reason.cancelled} cancelled)` : undefined)}
      {fact('Open', String(t.requests.open))}
      {fact('Escalated', percent(t.share_escalated), `of ${t.asked_requests} asked`)}
      {fact('Sent back', percent(t.share_sent_back), `of ${t.proposals} proposals`)}
      {fact('First answer', `${duration(t.time_to_first_answer.p50_s)} / ${duration(t.time_to_first_answer.p90_s)}`, 'p50 / p90')}
      {fact('Decision', `${duration(t.proposal_to_decision.p50_s)} / ${duration(t.proposal_to_decision.p90_s)}`, 'p50 / p90')}
      {fact('From the library', String(t.answered_from_library), 'asks spared')}
      {fact('Asks sent', String(t.asks))}
    </dl>
  );
}

/** Every chart and table of the window, the file names of the CSVs telling their window. */
export function InsightSections(props: { data: InsightsData; nameOf: (id: string) => string; fileSuffix: string }) {
  const { week, topic, expert } = props.data;
  const [allTopics, setAllTopics] = useState(false);
  const topics = [...topic.groups].sort((a, b) => b.requests.submitted - a.requests.submitted || (a.key < b.key ? -1 : 1));
  const experts = [...expert.groups].sort((a, b) => b.asks - a.asks || (a.key < b.key ? -1 : 1));
  const file = (name: string) => `expertq-${name}-${props.fileSuffix}`;
  return (
    <>
      <Section id="insights-outcomes" title="Requests per week by outcome" sub="Each request counts in the week it was submitted, by how it has ended so far.">
        <OutcomeChart weeks={week.groups} />
        <DataTable title="Requests per week by outcome" file={file('requests-per-week')} columns={OUTCOME_COLUMNS} rows={week.groups} empty="No weeks in this window." />
      </Section>
      <Section id="insights-times" title="Time to first answer and to decision" sub="Median (p50) and 90th percentile (p90) each week: from submission to the first expert answer, and from a proposal to its accept or reject. Each is within 10% of the true time.">
        <TimesChart weeks={week.groups} />
        <DataTable title="Time to first answer and to decision per week" file={file('times-per-week')} columns={TIME_COLUMNS} rows={week.groups} empty="No weeks in this window." />
      </Section>
      <Section id="insights-topics" title="Top topics" sub="Topics by requests submitted, most first.">
        <DataTable title="Top topics" file={file('topics')} columns={TOPIC_COLUMNS} rows={allTopics ? topics : topics.slice(0, TOP_TOPICS)} csvRows={topics} empty="No requests of any topic." />
        {topics.length > TOP_TOPICS ? (
          <button type="button" class="small" onClick={() => setAllTopics((all) => !all)} aria-expanded={allTopics}>
            {allTopics ? `Show the top ${TOP_TOPICS}` : `Show all ${topics.length} topics`}
          </button>
        ) : null}
      </Section>
      <Section id="insights-experts" title="Experts: load and answer rate" sub="Asks each expert was sent (re-asks included), their share of all asks, and how many of their asks they answered.">
        <DataTable title="Experts: load and answer rate" file={file('experts')} columns={expertColumns(props.nameOf)} rows={experts} empty="No expert was asked." />
      </Section>
      <Section id="insights-reuse" title="Library reuse" sub={`Answers accepted from the library: each an ask no expert had to answer. ${week.total.answered_from_library} in this window.`}>
        <ReuseChart weeks={week.groups} />
        <DataTable title="Library reuse per week" file={file('library-reuse')} columns={REUSE_COLUMNS} rows={week.groups} empty="No weeks in this window." />
      </Section>
    </>
  );
}
