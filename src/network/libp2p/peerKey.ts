import { open, readFile, rename } from 'node:fs/promises';
import { generateKeyPair, privateKeyFromProtobuf, privateKeyToProtobuf } from '@libp2p/crypto/keys';
import type { PrivateKey } from '@libp2p/interface';
import { CairnError } from '../../errors/CairnError';

/**
 * The node's peer identity on the network: an Ed25519 key kept in its data directory (`p2p-key`, mode 0600), made
 * on first start. It is not the validator key: it signs nothing of the chain, only the links (Noise), and losing it
 * only gives the node a new peer id.
 */
export async function loadOrCreatePeerKey(file: string): Promise<PrivateKey> {
  let bytes: Buffer | undefined;
  try {
    bytes = await readFile(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT')
      throw new CairnError('STORAGE_OPEN', `cannot read ${file}: ${(e as Error).message}`, { dir: file }, { cause: e });
  }
  if (bytes !== undefined) {
    try {
      return privateKeyFromProtobuf(bytes);
    } catch (e) {
      throw new CairnError(
        'STORAGE_OPEN',
        `${file} is damaged: remove it and the node makes a new peer identity (its peers then know it by a new id)`,
        { dir: file },
        { cause: e },
      );
    }
  }
  const key = await generateKeyPair('Ed25519');
  // Written whole or not at all: a crash leaves no half key behind.
  const tmp = `${file}.tmp`;
  const fh = await open(tmp, 'w', 0o600);
  try {
    await fh.writeFile(privateKeyToProtobuf(key));
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, file);
  return key;
}
