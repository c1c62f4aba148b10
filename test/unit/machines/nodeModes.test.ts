/**
 * The node's modes (machines/nodeModes.ts) hosted by the modes actor (actors/modesActor.ts,
 * machineBehavior): each report moves a region, an event the modes do not take is refused to
 * its sender while the actor runs on, and signing once halted stays halted.
 */
import { describe, expect, it } from 'vitest';
import { MessageRefusedError } from '../../../src/actors/actorRef';
import { modesActor, standaloneModes } from '../../../src/actors/modesActor';
import { walkMachine } from '../../helpers/machineWalk';
import { nodeModesMachine, type NodeModeEvent } from '../../../src/machines/nodeModes';
import { initialTransition, transition } from 'xstate';

describe('the node modes actor', () => {
  it(
    'starting → ready → stopping, with the failure kept; ' +
      'signing follows the election and halts for good; syncs come and go',
    async () => {
      const m = standaloneModes();
      expect(m.current()).toEqual({
        node: 'starting',
        signing: 'following',
        sync: 'inSync',
        failure: null,
        haltedAt: null,
      });
      expect(await m.ref.ask({ type: 'READY' })).toMatchObject({ node: 'ready' });
      await expect(m.ref.ask({ type: 'READY' })).rejects.toBeInstanceOf(MessageRefusedError); // refused, not a crash
      expect(await m.ref.ask({ type: 'ELECTED' })).toMatchObject({ signing: 'producing' });
      expect(await m.ref.ask({ type: 'SYNC_STARTED', target: 90 })).toMatchObject({ sync: 'syncing' });
      expect(await m.ref.ask({ type: 'SYNC_DONE' })).toMatchObject({ sync: 'inSync' });
      expect(await m.ref.ask({ type: 'KEY_IN_USE_ELSEWHERE', height: 12, hash: '0xab' })).toMatchObject({
        signing: 'halted',
        haltedAt: 12,
      });
      await expect(m.ref.ask({ type: 'ELECTED' })).rejects.toThrow(/modes refused ELECTED/);
      expect(await m.ref.ask({ type: 'STOP', reason: 'storage failure: disk full', failure: true })).toMatchObject({
        node: 'stopping',
        failure: 'storage failure: disk full',
      });
      expect(m.current()).toMatchObject({ node: 'stopping', signing: 'halted', failure: 'storage failure: disk full' });
      expect(m.ref.running).toBe(true);
      await m.ref.stop();
      expect(m.current().node).toBe('stopping'); // readable after the actor stopped
    },
  );

  it(
    'a restart (the supervisor starting the behaviour again) resumes the modes: ' + 'a halted signing stays halted',
    async () => {
      const m = modesActor();
      m.attachNow();
      await m.spec.start(); // the supervisor's first start: the behaviour already attached
      await m.ref.ask({ type: 'READY' });
      await m.ref.ask({ type: 'KEY_IN_USE_ELSEWHERE', height: 4, hash: '0x04' });
      m.ref.attach(await m.spec.start()); // a restart after a crash
      expect(m.current()).toEqual({ node: 'ready', signing: 'halted', sync: 'inSync', failure: null, haltedAt: 4 });
      await expect(m.ref.ask({ type: 'ELECTED' })).rejects.toBeInstanceOf(MessageRefusedError);
      await m.ref.stop();
    },
  );

  it('a requested stop keeps no failure; the walk reaches every state and halted is never left', () => {
    const [start] = initialTransition(nodeModesMachine);
    const [stopped] = transition(nodeModesMachine, start, { type: 'STOP', reason: 'requested', failure: false });
    expect([stopped.value, stopped.context.failure]).toEqual([
      { node: 'stopping', signing: 'following', sync: 'inSync' },
      null,
    ]);
    const alphabet = (): NodeModeEvent[] => [
      { type: 'READY' },
      { type: 'STOP', reason: 'requested', failure: false },
      { type: 'ELECTED' },
      { type: 'UNELECTED' },
      { type: 'KEY_IN_USE_ELSEWHERE', height: 3, hash: '0x01' },
      { type: 'SYNC_STARTED', target: 9 },
      { type: 'SYNC_DONE' },
    ];
    const seen = new Set<string>();
    walkMachine(nodeModesMachine, start, alphabet, 6, (snapshot, event, can) => {
      const v = snapshot.value as { node: string; signing: string; sync: string };
      seen.add(`node.${v.node}`).add(`signing.${v.signing}`).add(`sync.${v.sync}`);
      if (v.signing === 'halted' && (event.type === 'ELECTED' || event.type === 'UNELECTED')) expect(can).toBe(false);
    });
    expect([...seen].sort()).toEqual([
      'node.ready',
      'node.starting',
      'node.stopping',
      'signing.following',
      'signing.halted',
      'signing.producing',
      'sync.inSync',
      'sync.syncing',
    ]);
  });
});
