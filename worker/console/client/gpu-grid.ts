/** STUB (issue 16, in progress). */
export function initGpuGrid(_root: Document): void {}
