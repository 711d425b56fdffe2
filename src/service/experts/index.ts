/**
 * The expert roster and its changes: list, mute, replace, reload from the file, away and back.
 */
export { type AwayInput, endAway, endDueAways, setAway } from './expert-away.js';
export { awayFromChat, expertHome } from './expert-home.js';
export { type ExpertView, listExperts, warnAboutChannels, muteAndPassOn, muteExpert, replaceExperts, unmuteExpert } from './experts.js';
export { ExpertsReloader, type ReloadOutcome, type ReloadTrigger } from './reload-experts.js';
