/**
 * What every paginated feed's page carries besides its items. A `limit` above the feed's
 * maximum is not refused: the page is served capped at that maximum (docs/API.md "Pagination": MAX_CHAIN_PAGE
 * "for /chain and similar paginated endpoints"), and `capped` says so.
 */
export interface CappedPage {
  /**
   * Present only when the limit asked for was above the feed's maximum: e.g. "limit 500 is above MAX_LIMIT: at most 100
   * items are served".
   */
  capped?: string;
}
