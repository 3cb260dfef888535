/**
 * Styles shared by the components. Colours and spacing come from CSS custom properties set on
 * st-app (and inheritable from the page), so a host page can re-theme without touching components.
 */
import { css } from 'lit'

/** Tokens with fallbacks, so a component also renders sanely outside st-app (tests, embeds). */
export const baseStyles = css`
  :host {
    display: block;
    font-family: var(--st-font, system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif);
    color: var(--st-fg, #1d2330);
    font-size: 14px;
    line-height: 1.45;
  }
  h2 {
    font-size: 13px;
    font-weight: 600;
    text-transform: uppercase;
    letter-spacing: 0.04em;
    color: var(--st-muted, #5b6473);
    margin: 0 0 8px;
  }
  .muted { color: var(--st-muted, #5b6473); }
  .mono, code { font-family: var(--st-mono, ui-monospace, 'SFMono-Regular', Menlo, Consolas, monospace); font-size: 12.5px; }
  table { border-collapse: collapse; width: 100%; }
  th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--st-border, #e2e6ee); vertical-align: top; }
  th { font-weight: 600; color: var(--st-muted, #5b6473); background: var(--st-head, #f6f7fa); }
  /* Sticky headers only inside scroll boxes: on a plain table they overlap the first row. */
  .scroll th { position: sticky; top: 0; z-index: 1; }
  td.num { text-align: right; font-variant-numeric: tabular-nums; }
  button {
    font: inherit;
    cursor: pointer;
    border: 1px solid var(--st-border, #e2e6ee);
    background: var(--st-bg, #fff);
    border-radius: 6px;
    padding: 4px 10px;
    color: inherit;
  }
  button:hover { border-color: var(--st-accent, #2f6fde); }
  button[aria-pressed='true'] { background: var(--st-accent-bg, #e8f0fd); border-color: var(--st-accent, #2f6fde); }
`
