/** Random secrets shown once and stored only as sha256 hashes (they carry 256 bits, so no slow hash). */
import { sha256Hex } from "../../contract/digest.js";

export function randomBase64Url(bytes: number): string {
  const buf = crypto.getRandomValues(new Uint8Array(bytes));
  let s = "";
  for (const b of buf) s += String.fromCharCode(b);
  return btoa(s).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

export interface MintedSecret {
  secret: string;
  hash: string;
  prefix: string;
}

/** `kind` becomes a visible prefix (`sfp_` personal token, `sfe_` enrollment) so leaked secrets are recognisable. */
export async function mintSecret(kind: "sfp" | "sfe"): Promise<MintedSecret> {
  const secret = `${kind}_${randomBase64Url(32)}`;
  return { secret, hash: await hashSecret(secret), prefix: secret.slice(0, 10) };
}

export function hashSecret(secret: string): Promise<string> {
  return sha256Hex(secret);
}
