export { govPropose, govVote } from './propose';
export { recount, powerOf, getVoters, voteKey, votersKey } from './tally';
export { GOVERNANCE } from './errors';
