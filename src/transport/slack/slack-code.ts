/**
 * Slack's error code (`invalid_auth`, …), or what went wrong reaching it. A module of its own with no Slack import, so
 * a console-transport server never loads the Slack libraries (they are most of its start-up time).
 */
export function slackCode(error: unknown): string {
  const e = error as { data?: { error?: string }; message?: string };
  return e.data?.error ?? e.message ?? String(error);
}
