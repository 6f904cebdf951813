/** The domain part of an address column in SQL (after the last `@`), matching `emailDomain()`. */
export const sqlDomainOf = (expr: string): string => `regexp_replace(${expr}, '^.*@', '')`;
