/** STUB (issue 16, in progress). */
export function initUsageChart(_root: Document): void {}
