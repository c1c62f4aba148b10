import type { Html } from '../html';

/** A rendered page: its title, its markup, and what to draw once it is in the document (charts). */
export interface Page {
  title: string;
  body: Html;
  mount?: (root: HTMLElement) => void;
}

/** Pages are addressed by hash routes: `#/<kind>/<arg>`. */
export type PageFn = (arg: string) => Promise<Page>;
