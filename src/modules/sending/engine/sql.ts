/** The current UTC day as the SQL expression every counter uses. */
export const UTC_TODAY = `(now() AT TIME ZONE 'UTC')::date`;
