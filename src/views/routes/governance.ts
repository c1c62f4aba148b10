import type { GovernanceView, ProposalsPage, ProposalView, TreasuryView, ValidatorsView } from '..';
import { PROPOSAL_STATES } from '../../modules/governance/machine';
import { FEED_PAGE, forAddress, since } from './common';
import { defineRoute, id64, limit, oneOf, view } from './define';

/** Validators, governance and the treasury. */
export const GOVERNANCE_ROUTES = {
  validators: defineRoute({
    method: 'GET',
    path: '/validators',
    ok: view<ValidatorsView>('ValidatorsView'),
    summary: 'Active set, standby bank, bankSize, maxValidators, slotProducer, epoch, per-validator performance',
    cli: { command: 'stake validators' },
  }),
  governance: defineRoute({
    method: 'GET',
    path: '/governance',
    ok: view<GovernanceView>('GovernanceView'),
    summary: 'Every governable parameter (value, bounds, changedAt) and proposal counts',
    cli: { command: 'gov params' },
  }),
  proposals: defineRoute({
    method: 'GET',
    path: '/governance/proposals',
    ok: view<ProposalsPage>('ProposalsPage'),
    summary: 'Proposals with live tally and history; since = changed after a height, with cursor and finalizedHeight',
    query: {
      status: oneOf(PROPOSAL_STATES, 'Only proposals in this state', true),
      since: since('proposals changed'),
      limit: limit(FEED_PAGE),
    },
    errors: { 400: 'Unknown status, since above the head, or limit malformed' },
    cli: { command: 'gov list', help: "Poll again with --since the answer's cursor: no transition is skipped." },
  }),
  proposal: defineRoute({
    method: 'GET',
    path: '/governance/proposals/:id',
    ok: view<ProposalView>('ProposalView'),
    nullIfMissing: true,
    summary:
      'One proposal: status, tally, tally history, transitions with heights; for=<address>: the actions that ' +
      'address may send now, with their windows',
    params: {
      id: id64(
        'Proposal id (the GOV_PROPOSE transaction id): 0x + 64 hex digits',
        'invalid proposal id: expected 0x followed by 64 hex digits (the GOV_PROPOSE transaction id)',
      ),
    },
    query: { for: forAddress('proposal') },
    errors: { 400: 'Not 0x + 64 hex digits, or a bad for address', 404: 'No such proposal' },
    cli: { command: 'gov show' },
  }),
  treasury: defineRoute({
    method: 'GET',
    path: '/treasury',
    ok: view<TreasuryView>('TreasuryView'),
    summary: 'Treasury balance, income, spends and policy',
    cli: { command: 'gov treasury' },
  }),
};
