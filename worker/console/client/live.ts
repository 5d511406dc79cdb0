/** STUB (issue 16, in progress). */
export function initLive(_root: Document): void {}
