import { loadParams } from '../../protocol/governable';
import { TxFailure } from '../../protocol/handler';
import { addressFlag, textFlag } from '../tx/cli';
import { defineTx } from '../tx/define';
import { addressesIn, addressField } from '../tx/fields';
import { taskIdField } from './fields';
import { dutyRefusal, getOracle } from './oracles';
import { checkTask, priceField, sendTask } from './task';

/**
 * AI_BID: a staked oracle offers to answer an auction task for `data.price` (≤ the reward); a later bid replaces its
 * earlier one.
 */
export const aiBid = defineTx({
  type: 'AI_BID',
  module: 'ai',
  summary:
    'a staked oracle bids data.price (at most the reward) to answer an auction task; a later bid replaces the ' +
    "oracle's earlier one",
  to: { kind: 'none' },
  fields: { taskId: taskIdField(), price: priceField('what the oracle asks, in base units (at most the reward)') },
  energy: 500n,
  cli: {
    command: 'ai bid',
    about: 'Bids to answer an open task for --price (at most its reward) during its bidding window.',
    summary: '--task <id> --price <n>',
    flags: [
      textFlag('task', '<id>', 'the task id', 'taskId'),
      {
        flag: 'price',
        field: 'price',
        kind: 'coins',
        metavar: '<n>',
        help: 'your price in base units (1 coin = 1000000)',
      },
    ],
    example: 'cairn ai bid --task 0x… --price 20000000 --wait included',
  },
  async run({ state, height, sender, events }, { taskId, price }) {
    const event = { type: 'BID', oracle: sender, price: price.toString(), height } as const;
    const snap = await checkTask(state, taskId, event);
    const refused = dutyRefusal(await getOracle(state, sender), sender, await loadParams(state));
    if (refused) throw new TxFailure(refused);
    events.push(...(await sendTask(state, taskId, event, height, snap)));
  },
});

/**
 * AI_AWARD: the requester picks a bidder (at the bidding deadline the lowest bid wins by itself); the rest of the
 * reward comes back.
 */
export const aiAward = defineTx({
  type: 'AI_AWARD',
  module: 'ai',
  summary:
    "the requester awards an auction task to one of its bidders (data.oracle); the reward above the bid's " +
    'price is refunded',
  to: { kind: 'none' },
  fields: { taskId: taskIdField(), oracle: addressField('the bidder awarded (0x address)') },
  parties: (tx) => addressesIn(tx.data, ['oracle']),
  energy: 500n,
  cli: {
    command: 'ai award',
    about: `Awards your auction task to one of its bidders; the reward above its price comes back to
you. Without an award, the lowest bid wins when bidding closes.`,
    summary: '--task <id> --oracle <address>',
    flags: [textFlag('task', '<id>', 'the task id', 'taskId'), addressFlag('oracle', 'the bidder to award')],
    example: 'cairn ai award --task 0x… --oracle 0x… --wait included',
  },
  async run({ state, height, sender, events }, { taskId, oracle }) {
    const event = { type: 'AWARD', oracle, by: sender, height } as const;
    const snap = await checkTask(state, taskId, event);
    const refused = dutyRefusal(await getOracle(state, oracle), oracle, await loadParams(state));
    if (refused) throw new TxFailure(refused);
    events.push(...(await sendTask(state, taskId, event, height, snap)));
  },
});
