/** Types for `role-based-email-addresses`, which ships none: one array of local parts, and its parts by kind. */
declare module 'role-based-email-addresses' {
  const prefixes: readonly string[] & {
    MARKETING: readonly string[];
    NOTIFICATION: readonly string[];
    MEETING: readonly string[];
    OTHER: readonly string[];
  };
  export default prefixes;
}
