/**
 * The part of workerd's `node:crypto` (nodejs_compat, wrangler.toml) the Worker and the objects use. The
 * workerd type checks leave out @types/node, so that nothing Node-only slips into code that runs there;
 * what workerd does provide is declared here, and only that.
 */
declare module "node:crypto" {
  interface Hash {
    update(data: string | Uint8Array): Hash;
    digest(encoding: "hex"): string;
  }
  export function createHash(algorithm: "sha256"): Hash;
}
