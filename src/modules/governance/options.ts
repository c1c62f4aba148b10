/** A vote's options and a tally of them (base units of voting power, as strings). */
export const OPTIONS = ['yes', 'no', 'abstain', 'veto'] as const;
export type VoteOption = (typeof OPTIONS)[number];
export type Tally = Record<VoteOption, string>;

export const ZERO_TALLY: Tally = { yes: '0', no: '0', abstain: '0', veto: '0' };
