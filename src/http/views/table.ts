import { type Html, html } from '../../lib/html.ts';

/**
 * A table cell that names its column. Tables of class "data" stack on a phone (one block per row,
 * app.css), and each cell then shows its column's name before its value (`td[data-label]::before`).
 */
export function cell(label: string, content: Html | string, className = ''): Html {
  // The value sits in one element, so the stacked layout's two grid columns are label and value.
  return html`<td data-label="${label}"${className ? html` class="${className}"` : ''}><div>${content}</div></td>`;
}
