import { describe, expect, it } from 'vitest';
import { RECORD_PREFIX, recordKey } from '../../../src/protocol/records';

describe('consensus record prefixes', () => {
  it('no prefix is a prefix of another, so no two record kinds can share a key', () => {
    const entries = Object.entries(RECORD_PREFIX);
    for (const [a, pa] of entries)
      for (const [b, pb] of entries)
        if (a !== b) expect(pb.startsWith(pa), `${b} (${pb}) starts with ${a} (${pa})`).toBe(false);
  });
  it('builds a key from the prefix and the parts', () => {
    expect(recordKey('tokenBalance', '0xab', '0xcd')).toBe('tokbal/0xab/0xcd');
    expect(recordKey('supply')).toBe('chain/supply');
  });
});
