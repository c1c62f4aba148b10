export { govPropose, govVote } from './propose';
export { recount, recountDue, powerOf, getVoters, voteKey, votersKey } from './tally';
export { GOVERNANCE } from './errors';
