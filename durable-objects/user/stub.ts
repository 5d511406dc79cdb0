/** The User DO as the Worker and the Fleet DOs call it (one object per user, named by the user's id). */
import { type Namespace, type Rpc, stubOf } from "../rpc.js";
import type { UserDO } from "./user.do.js";

export function userStub(env: { USERS: Namespace }, userId: string): Rpc<UserDO> {
  return stubOf<UserDO>(env.USERS, userId);
}
