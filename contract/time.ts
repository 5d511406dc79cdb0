/** Time helpers every layer uses the same way (quotas by UTC day, time zones of windows). Pure. */

/** The UTC calendar day of an instant, `YYYY-MM-DD`: the unit of daily GPU-hour quotas and usage. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Whether the runtime knows the IANA time zone (fleet windows are given in one). */
export function isValidTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}
