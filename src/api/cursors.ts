/**
 * Page cursors of the asset feeds. Their format belongs to the index that issues them
 * (storage/assetIndex.ts); http/ decodes a client's `before` through here.
 */
export { decodeCursor, type Feed, type HeightStart } from '../storage/assetIndex';
