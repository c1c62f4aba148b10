import type { CappedPage } from '../views';
import type { PageSize } from '../views/routes';
import { badRequest } from '../web/httpError';

/**
 * What the handlers do with parameters once the route table has read them (views/routes):
 * pages say when they were capped; the machine feeds refuse a `since` they have not reached.
 */

/** `page` as served with `size`: with its `capped` note, when the size was capped. */
export const sized = <T extends object>(size: PageSize, page: T): T & CappedPage =>
  size.capped === undefined ? page : { ...page, capped: size.capped };

/** A `since` above the head is a 400: an empty list for a height not yet processed would read as "nothing happened". */
export function sinceAtHead(since: number | undefined, head: number): number | undefined {
  if (since !== undefined && since > head)
    throw badRequest(`since (${since}) is above this node's head (${head}): it has not processed that height yet`);
  return since;
}
