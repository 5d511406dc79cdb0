/** The one error family. Thrown anywhere in the Worker, rendered once by `app.onError`. */
import { type ErrorBody, type ErrorCode, type Result, statusOf } from "../contract/errors.js";

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = "AppError";
    this.status = statusOf(code);
  }

  toBody(): ErrorBody {
    return {
      error: {
        code: this.code,
        message: this.message,
        ...(this.details === undefined ? {} : { details: this.details }),
      },
    };
  }
}

export function unwrap<T>(r: Result<T>): T {
  if (r.ok) return r.value;
  throw new AppError(r.code, r.message, r.details);
}
