import type { OraclesView, TasksPage, TaskView } from '..';
import { TASK_MODES, TASK_STATES } from '../../modules/ai/machine';
import { FEED_HELP, FEED_PAGE, FINAL, forAddress, since } from './common';
import { addressFilter, defineRoute, id64, limit, oneOf, view } from './define';

/** The AI-task layer: tasks and oracles. */

export const AI_ROUTES = {
  tasks: defineRoute({
    method: 'GET',
    path: '/ai/tasks',
    ok: view<TasksPage>('TasksPage'),
    summary:
      'AI tasks with state, deadlines as heights, commits, reveals, result, history; since = the transitions ' +
      'after a height (whole blocks, cursor, finalizedHeight; final=true: final heights only)',
    query: {
      status: oneOf(TASK_STATES, 'Only tasks in this state', true),
      mode: oneOf(TASK_MODES, 'Only tasks of this mode', false),
      oracle: addressFilter('Only tasks of this oracle (0x or cairn1… address)'),
      since: since('task transitions'),
      final: FINAL,
      limit: limit(FEED_PAGE),
    },
    errors: { 400: 'Unknown status or mode, bad oracle address, since above the head, final or limit malformed' },
    cli: { command: 'ai list', help: FEED_HELP },
  }),
  task: defineRoute({
    method: 'GET',
    path: '/ai/tasks/:id',
    ok: view<TaskView>('TaskView'),
    nullIfMissing: true,
    summary:
      'One AI task: state, deadlines and the next one, commits, reveals, bids, verdicts, result, transitions ' +
      'with heights; for=<address>: the actions that address may send now, with their windows',
    params: {
      id: id64(
        'Task id (the AI_TASK transaction id): 0x + 64 hex digits',
        'invalid task id: expected 0x followed by 64 hex digits (the AI_TASK transaction id)',
      ),
    },
    query: { for: forAddress('task') },
    errors: { 400: 'Not 0x + 64 hex digits, or a bad for address', 404: 'No such task' },
    cli: { command: 'ai show' },
  }),
  oracles: defineRoute({
    method: 'GET',
    path: '/ai/oracles',
    ok: view<OraclesView>('OraclesView'),
    summary: 'Registered oracles: stake, completed, failed, missed, late, slashes, reputation, open duties',
    cli: { command: 'oracle list' },
  }),
};
