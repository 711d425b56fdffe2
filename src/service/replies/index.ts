/**
 * What experts send back: a reply to an ask becomes a proposal; an inbound message is a reply,
 * a mute or an away.
 */
export { receiveInbound } from './receive-inbound.js';
export { receiveReply, type ReplyInput, type ReplyResult } from './receive-reply.js';
export { receiveAutoReply, receiveRefused, receiveUndeliverable, type ChannelNotice } from './channel-notices.js';
