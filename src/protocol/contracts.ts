/**
 * A verified contract's metadata (POST /contract/:addr/verify stores it, GET /contract/:addr shows it): shared by
 * contracts/ and the API views.
 */
export interface ContractMetadata {
  address: string;
  name: string;
  file: string;
  abi: unknown[];
  compiler: string;
  settings: { optimizer: { enabled: boolean; runs: number }; evmVersion: string | null };
  sources: Record<string, string>;
  verifiedAtHeight: number;
}
