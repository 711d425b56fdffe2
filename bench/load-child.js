// Runs autocannon in a child process so the load generator does not share the server's event loop
// (a worker thread would not do: autocannon skips its result aggregation outside the main thread).
// argv[2]: JSON { url, path, connections, seconds, seed, firstBody, token?, rate? } (rate: requests per second in
// all, at most; unset: as fast as the connections go). Sends back { result } or { error } over IPC.
import autocannon from 'autocannon';
import { prng, submitBody, topicPool } from './fixtures.js';

const { url, path, connections, seconds, seed, firstBody = 0, token, rate } = JSON.parse(process.argv[2]);
const pool = topicPool();
const rand = prng(seed);
let sent = firstBody;
const reply = (message) => process.send(message, () => process.disconnect());
/** Status code → first response body seen with it (non-2xx only), for diagnosis. */
const failures = {};

try {
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    ...(rate ? { overallRate: rate } : {}),
    requests: [
      {
        method: 'POST',
        path,
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        setupRequest(request) {
          const topic = pool[Math.floor(rand() * pool.length)];
          return { ...request, body: JSON.stringify(submitBody(topic, sent++)) };
        },
        onResponse(status, body) {
          if ((status < 200 || status > 299) && !(status in failures)) failures[status] = String(body).slice(0, 500);
        },
      },
    ],
  });
  reply({
    result: {
      requestsPerSec: result.requests.average,
      total: result.requests.total,
      latencyP50: result.latency.p50,
      latencyP99: result.latency.p99,
      latencyMax: result.latency.max,
      ok2xx: result['2xx'],
      non2xx: result.non2xx,
      errors: result.errors,
      timeouts: result.timeouts,
      duration: result.duration,
      bodiesSent: sent - firstBody,
      failures,
    },
  });
} catch (error) {
  reply({ error: error instanceof Error ? error.stack ?? error.message : String(error) });
}
