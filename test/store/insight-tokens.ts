/** The tokens the insights tests call with: the admin's (the kit's own), a reviewer's and a consumer's. */
export const ADMIN = 'insights-admin-token';
export const REVIEWER = 'insights-reviewer-token';
export const CONSUMER = 'insights-consumer-token';
export const credentials = [
  { name: 'Riley Reviewer', role: 'reviewer' as const, token: REVIEWER },
  { name: 'billing-bot', role: 'consumer' as const, token: CONSUMER },
];
