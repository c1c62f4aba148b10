/**
 * What http/ and rpc/ may know of the node below them: the types of the services the node
 * hands them. They import these from here, never from actors/, storage/ or mempool/.
 */
export type { AlertKind, AlertSource, SecurityAlert } from '../actors/sentinel/alerts';
export type { PeerInfo } from '../actors/peers';
export type { Admission, SubmitOutcome } from './admission';
