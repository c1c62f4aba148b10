import { MAX_ASSET_NAME_BYTES, MAX_NFT_URI_BYTES } from '../../protocol/params';
import type { Hex } from '../../primitives/hex';
import type { CliFlag } from '../tx/entry';
import { assetIdField, assetNameField, integerField, optionalTextField, symbolField } from '../tx/fields';

/** Fields and CLI flags the NFT721 types share. */

export const nameField = assetNameField(
  MAX_ASSET_NAME_BYTES,
  {
    shape: `must be a string of 1 to ${MAX_ASSET_NAME_BYTES} UTF-8 bytes`,
    text: 'must not contain control characters',
  },
  `display name, 1 to ${MAX_ASSET_NAME_BYTES} UTF-8 bytes, no control characters or lone surrogates`,
);
export const symbolOf = symbolField(
  'must be an upper-case letter followed by at most 11 upper-case letters or digits',
  'A-Z then up to 11 A-Z/0-9; unique among collections',
);
export const uriField = optionalTextField(
  MAX_NFT_URI_BYTES,
  `optional metadata URI, at most ${MAX_NFT_URI_BYTES} UTF-8 bytes, or null`,
);
export const collectionField = assetIdField('collection', 'collection id (0x + 40 lower-case hex)');
export const itemField = integerField('must be a positive safe integer', 'item number, from 1', 1);

/** Data of the types that act on one item: { collection, item }. */
export const ITEM_FIELDS = { collection: collectionField, item: itemField };
export interface ItemRef {
  collection: Hex;
  item: number;
}

export const COLLECTION_FLAG: CliFlag = {
  flag: 'collection',
  field: 'collection',
  kind: 'collection',
  metavar: '<id>',
  help: 'collection id (0x + 40 hex) or symbol (looked up on the node)',
};
export const ITEM_FLAG: CliFlag = {
  flag: 'item',
  field: 'item',
  kind: 'int',
  metavar: '<n>',
  help: 'item number (from 1)',
};
