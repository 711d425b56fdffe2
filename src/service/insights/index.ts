/**
 * Insights: what the service did for the organisation, read from the rollups kept with each event.
 */
export { readInsights } from './read-insights.js';
