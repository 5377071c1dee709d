// String values for sampled JSON: by `format`, by the property's name (a
// `city` takes a place named in the prompt, a `query` the prompt itself), or
// plain readable text made from the property name.
import type { PromptHints } from "./prompt.js";
import { clip } from "./prompt.js";

const DEFAULT_DATE = "2025-01-01";

/** A value for a JSON Schema string `format`, or undefined for formats without one. */
export function formatValue(format: string, hints: PromptHints, variant: number): string | undefined {
  const date = hints.dates[variant] ?? (variant ? `2025-01-${String(1 + (variant % 28)).padStart(2, "0")}` : (hints.dates[0] ?? DEFAULT_DATE));
  switch (format.toLowerCase()) {
    case "date":
      return date;
    case "date-time":
    case "datetime":
      return `${date}T12:00:00Z`;
    case "time":
      return "12:00:00Z";
    case "duration":
      return `P${variant + 1}D`;
    case "email":
    case "idn-email":
      return variant ? `user${variant + 1}@example.com` : (hints.emails[0] ?? "user@example.com");
    case "uri":
    case "url":
    case "iri":
    case "uri-reference":
    case "iri-reference":
      return hints.urls[variant] ?? `https://example.com/${variant ? String(variant + 1) : ""}`;
    case "uri-template":
      return "https://example.com/{id}";
    case "hostname":
    case "idn-hostname":
      return variant ? `host${variant + 1}.example.com` : "example.com";
    case "ipv4":
      return `192.0.2.${1 + (variant % 250)}`;
    case "ipv6":
      return `2001:db8::${(1 + variant).toString(16)}`;
    case "uuid":
      return `123e4567-e89b-42d3-a456-${String(426614174000 + variant).padStart(12, "0")}`;
    case "byte":
      return "aGVsbG8=";
    case "json-pointer":
      return "/example";
    case "relative-json-pointer":
      return "0";
    case "regex":
      return "^example$";
    default:
      return undefined;
  }
}

/** Words of a property name: "cityName" and "city_name" both give ["city", "name"]. */
export function keyWords(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** A rule's `given` says whether the user's words hold a value of its kind (not just the prompt as a fallback). */
type Rule = { words: string[]; value: (h: PromptHints) => string; given?: (h: PromptHints) => boolean };

const RULES: Rule[] = [
  // A folder the user did not name is the current one (agent CLIs resolve it against their workspace).
  { words: ["dir", "directory", "folder"], value: (h) => h.paths[0] ?? ".", given: (h) => h.paths.length > 0 || /\b(?:current|this|working) (?:directory|folder|dir)\b/i.test(h.text) },
  { words: ["path", "file", "filename", "filepath"], value: (h) => h.paths[0] ?? "/tmp/example.txt", given: (h) => h.paths.length > 0 },
  { words: ["url", "uri", "link", "website", "href", "endpoint", "homepage"], value: (h) => h.urls[0] ?? "https://example.com/", given: (h) => h.urls.length > 0 },
  { words: ["email", "mail"], value: (h) => h.emails[0] ?? "user@example.com", given: (h) => h.emails.length > 0 },
  { words: ["command", "cmd", "script", "shell"], value: commandOf, given: (h) => h.commands.length + h.quoted.length > 0 },
  {
    words: ["city", "location", "place", "town", "country", "destination", "origin", "region", "address", "where", "venue", "area"],
    value: (h) => h.names[0] ?? "Paris",
    given: (h) => h.names.length > 0,
  },
  { words: ["name", "person", "who", "author", "username", "user", "customer", "contact"], value: (h) => h.names[0] ?? "Ada Lovelace", given: (h) => h.names.length > 0 },
  {
    words: [
      "query",
      "q",
      "search",
      "question",
      "prompt",
      "text",
      "message",
      "content",
      "input",
      "topic",
      "keyword",
      "keywords",
      "description",
      "body",
      "instruction",
      "instructions",
      "task",
      "summary",
      "note",
      "comment",
      "title",
      "subject",
    ],
    value: (h) => clip(h.text, 200) || "example",
  },
  { words: ["date", "day", "when", "deadline"], value: (h) => h.dates[0] ?? DEFAULT_DATE, given: (h) => h.dates.length > 0 },
  { words: ["time"], value: () => "12:00" },
  { words: ["lang", "language", "locale"], value: () => "en" },
  { words: ["currency"], value: () => "USD" },
  { words: ["color", "colour"], value: () => "blue" },
];

/** A shell command: what follows "run:" in the prompt, else its first quoted snippet, else `ls -la`. */
export function commandOf(h: PromptHints): string {
  return h.commands[0] ?? h.quoted[0] ?? "ls -la";
}

function ruleFor(words: string[]): Rule | undefined {
  // Rules are ordered, so "file_name" is a file and "city_name" a city.
  return RULES.find((r) => words.some((w) => r.words.includes(w)));
}

/** Whether the user's words hold a value for a string property named `key` (a place for `city`, a path for `file_path`). */
export function givenForKey(key: string, hints: PromptHints): boolean {
  return ruleFor(keyWords(key))?.given?.(hints) ?? false;
}

/** A readable string for a property, derived from the prompt where the name suggests it. */
export function stringForKey(key: string, hints: PromptHints, variant: number): string {
  const words = keyWords(key);
  const suffix = variant ? ` ${variant + 1}` : "";
  if (!words.length) return (clip(hints.text, 80) || "example") + suffix;
  const rule = ruleFor(words);
  return rule ? rule.value(hints) + suffix : words.join(" ") + suffix;
}
