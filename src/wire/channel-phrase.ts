/** How a question's channel reads after "Asked Dana": " by email", " on Slack"; nothing on the console. */
export function channelPhrase(channel: string | null | undefined): string {
  switch (channel) {
    case 'email':
      return ' by email';
    case 'slack':
      return ' on Slack';
    case 'teams':
      return ' on Teams';
    default:
      return '';
  }
}
