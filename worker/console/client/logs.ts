/** STUB (issue 16, in progress). */
export function initLogs(_root: Document): void {}
