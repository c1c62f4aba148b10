/** The NFT721 entries. */
export { nftApprove } from './approve';
export { nftBurn } from './burn';
export { nftCreate } from './create';
export { nftMint } from './mint';
export { nftTransfer } from './transfer';
