/** STUB (issue 16, in progress). */
export function initCharts(_root: Document): void {}
