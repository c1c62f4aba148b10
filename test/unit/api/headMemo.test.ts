import { describe, expect, it } from 'vitest';
import { HeadMemo, JsonText, memoJson } from '../../../src/api/headMemo';

describe('HeadMemo', () => {
  it('builds once per head and finalized height, and again when either moves', async () => {
    const head = { hash: '0xa', finalizedHeight: 1 };
    const memo = new HeadMemo(() => head);
    let builds = 0;
    const read = () => memo.get('status', async () => ++builds);
    expect(await Promise.all([read(), read(), read()])).toEqual([1, 1, 1]);
    head.finalizedHeight = 2; // finality alone changes what a read says ("finalized": true)
    expect(await read()).toBe(2);
    head.hash = '0xb';
    expect(await read()).toBe(3);
    expect(await read()).toBe(3);
  });

  it('does not keep a failed build; is bounded; memoJson serializes once', async () => {
    const memo = new HeadMemo(() => ({ hash: '0xa', finalizedHeight: 0 }), 2);
    let fail = true;
    const build = async () => {
      if (fail) throw new Error('store busy');
      return 'ok';
    };
    await expect(memo.get('x', build)).rejects.toThrow('store busy');
    fail = false;
    expect(await memo.get('x', build)).toBe('ok');
    let n = 0;
    for (const k of ['a', 'b', 'c']) await memo.get(k, async () => ++n);
    expect(await memo.get('a', async () => ++n)).toBe(4); // evicted when the third key came
    const text = await memoJson(memo, 'j', async () => ({ height: 1 }));
    expect(text).toBeInstanceOf(JsonText);
    expect(text.text).toBe('{"height":1}');
  });
});

describe('HeadMemo answers at hand', () => {
  it(
    'hands out a built value as is (no promise) until the head moves; ' + 'a shared JsonText carries its bytes',
    async () => {
      const head = { hash: '0xa', finalizedHeight: 1 };
      const memo = new HeadMemo(() => head);
      const first = memo.get('status', async () => 'built');
      expect(first).toBeInstanceOf(Promise);
      expect(await first).toBe('built');
      expect(memo.get('status', async () => 'again')).toBe('built'); // synchronous now
      head.hash = '0xb';
      expect(memo.get('status', async () => 'next')).toBeInstanceOf(Promise);
      const j = await memoJson(memo, 'j', async () => ({ a: 'é' }));
      expect(Buffer.from(j.bytes!).toString('utf8')).toBe(j.text);
      expect(new JsonText('{}').bytes).toBeUndefined();
    },
  );
});
