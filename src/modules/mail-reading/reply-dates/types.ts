/** What the reader answers, and the languages it reads. */

export interface ReadDay {
  /** The calendar day, `YYYY-MM-DD`. */
  day: string;
  /** True when the text named a month alone ("in March"): `day` is that month's first working day. */
  monthOnly: boolean;
  /**
   * Away notices only: true when `day` is the day the author is back ("back on", "wieder ab", "de
   * retour le", "regreso el"), false when it is the last day away ("until", "bis", "jusqu'au", "hasta").
   */
  dayBack?: boolean;
}

export interface ReadReferral {
  email: string;
  firstName: string | null;
  lastName: string | null;
  /** True when the address is at the replier's own registrable domain (always, unless `anyDomain`). */
  sameDomain?: boolean;
}

export interface ReadReferralOptions {
  /** Also answer an address at another domain (`sameDomain: false`), when no same-domain one is named. */
  anyDomain?: boolean;
  /** Addresses never taken (the inbox the campaign sends from, ...), compared case-insensitively. */
  exclude?: readonly string[];
}

/** The four languages whose dates the scanner knows. */
export type Lang = 'en' | 'de' | 'fr' | 'es';
