// Every word the page shows, in German and English (and French and Danish, in the seeds' words):
// one catalog per language (i18n/*.json, the same keys in each: tests/web/test_words.py fails on
// a key missing in one), chosen from the browser's languages and switchable; the choice is kept
// in localStorage.
//
// A catalog entry is a string with `{name}` placeholders, or, for a count, one string per
// plural category of Intl.PluralRules ({"one": "{count} card", "other": "{count} cards"}).
import da from "./i18n/da.json";
import de from "./i18n/de.json";
import en from "./i18n/en.json";
import fr from "./i18n/fr.json";

type Entry = string | Partial<Record<Intl.LDMLPluralRule, string>>;
export type Catalog = Record<string, Entry>;
export type Key = keyof typeof en;

export const LANGUAGES = { da, de, en, fr } as const satisfies Record<string, Catalog>;
export type Language = keyof typeof LANGUAGES;
/** Each language by its own name, for the switch. */
export const LANGUAGE_NAMES: Record<Language, string> = {
  da: "Dansk",
  de: "Deutsch",
  en: "English",
  fr: "Français",
};

const STORAGE_KEY = "verrater.language";

function isLanguage(code: string | null | undefined): code is Language {
  return !!code && code in LANGUAGES;
}

/** The stored choice, else the first of the browser's languages the page speaks, else English. */
export function preferredLanguage(): Language {
  try {
    const stored = window.localStorage.getItem(STORAGE_KEY);
    if (isLanguage(stored)) return stored;
  } catch {
    // No storage: follow the browser.
  }
  for (const tag of navigator.languages ?? [navigator.language]) {
    const base = tag.toLowerCase().split("-")[0];
    if (isLanguage(base)) return base;
  }
  return "en";
}

let current: Language = preferredLanguage();
let plurals = new Intl.PluralRules(current);
document.documentElement.lang = current;

export function language(): Language {
  return current;
}

export function setLanguage(next: Language): void {
  current = next;
  plurals = new Intl.PluralRules(next);
  document.documentElement.lang = next;
  try {
    window.localStorage.setItem(STORAGE_KEY, next);
  } catch {
    // Not kept: the choice lasts for this page.
  }
}

export type Params = Record<string, string | number | bigint>;

function fill(text: string, params: Params | undefined): string {
  if (!params) return text;
  return text.replace(/\{(\w+)\}/g, (whole, name: string) =>
    name in params ? String(params[name]) : whole,
  );
}

function lookup(catalog: Catalog, key: string, params: Params | undefined): string | undefined {
  const entry = catalog[key];
  if (entry === undefined) return undefined;
  if (typeof entry === "string") return fill(entry, params);
  const count = Number(params?.count ?? 0);
  const form = entry[plurals.select(count)] ?? entry.other;
  return form === undefined ? undefined : fill(form, params);
}

/** The words for `key` in the current language. */
export function t(key: Key, params?: Params): string {
  return lookup(LANGUAGES[current], key, params) ?? lookup(en, key, params) ?? key;
}

/** The words for a key made at run time (an enum's name, a refusal's reason): English, then
 * `fallback`, when the catalogs do not know it (a newer server's value). */
export function tDynamic(key: string, params: Params | undefined, fallback: string): string {
  return lookup(LANGUAGES[current], key, params) ?? lookup(en, key, params) ?? fallback;
}

/** A list in the language's words: "A, B and C". */
export function list(items: string[]): string {
  return new Intl.ListFormat(current, { style: "long", type: "conjunction" }).format(items);
}
