/**
 * Slack mrkdwn escaping, both ways (https://api.slack.com/reference/surfaces/formatting#escaping).
 * Outbound, `&`, `<` and `>` are escaped so text from a consumer cannot post `<!channel>` or a
 * disguised `<https://evil|docs>` link. Inbound, what Slack escaped or turned into link markup is
 * turned back into what the expert typed: the answer is stored verbatim.
 */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** `<https://x|label>` and `<https://x>` become the URL, `<mailto:a@b|a@b>` the address; then entities are undone. */
export function readSlackText(text: string): string {
  const linked = text.replace(/<((?:https?|mailto):[^>|]+)(?:\|[^>]*)?>/g, (_m, url: string) => url.replace(/^mailto:/, ''));
  return linked.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}
