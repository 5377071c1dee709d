// String values for sampled JSON: by `format`, by the property's name (a
// `city` takes a place named in the prompt, a `query` the prompt itself), or
// plain readable text made from the property name.
import type { PromptHints } from "./prompt.js";
import { clip } from "./prompt.js";

const DEFAULT_DATE = "2025-01-01";

/** A value for a JSON Schema string `format`, or undefined for formats without one. */
export function formatValue(format: string, hints: PromptHints, variant: number): string | undefined {
  const date = hints.dates[variant] ?? (variant ? `2025-01-${String(1 + (variant % 28)).padStart(2, "0")}` : hints.dates[0] ?? DEFAULT_DATE);
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
      return variant ? `user${variant + 1}@example.com` : hints.emails[0] ?? "user@example.com";
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

type Rule = { words: string[]; value: (h: PromptHints) => string };

const RULES: Rule[] = [
  { words: ["path", "file", "filename", "filepath", "dir", "directory", "folder"], value: (h) => h.paths[0] ?? "/tmp/example.txt" },
  { words: ["url", "uri", "link", "website", "href", "endpoint", "homepage"], value: (h) => h.urls[0] ?? "https://example.com/" },
  { words: ["email", "mail"], value: (h) => h.emails[0] ?? "user@example.com" },
  { words: ["command", "cmd", "script", "shell"], value: (h) => h.quoted[0] ?? "ls -la" },
  {
    words: ["city", "location", "place", "town", "country", "destination", "origin", "region", "address", "where", "venue", "area"],
    value: (h) => h.names[0] ?? "Paris",
  },
  { words: ["name", "person", "who", "author", "username", "user", "customer", "contact"], value: (h) => h.names[0] ?? "Ada Lovelace" },
  {
    words: ["query", "q", "search", "question", "prompt", "text", "message", "content", "input", "topic", "keyword", "keywords", "description", "body", "instruction", "instructions", "task", "summary", "note", "comment", "title", "subject"],
    value: (h) => clip(h.text, 200) || "example",
  },
  { words: ["date", "day", "when", "deadline"], value: (h) => h.dates[0] ?? DEFAULT_DATE },
  { words: ["time"], value: () => "12:00" },
  { words: ["lang", "language", "locale"], value: () => "en" },
  { words: ["currency"], value: () => "USD" },
  { words: ["color", "colour"], value: () => "blue" },
];

/** A readable string for a property, derived from the prompt where the name suggests it. */
export function stringForKey(key: string, hints: PromptHints, variant: number): string {
  const words = keyWords(key);
  const suffix = variant ? ` ${variant + 1}` : "";
  if (!words.length) return (clip(hints.text, 80) || "example") + suffix;
  for (const r of RULES) {
    // Rules are ordered, so "file_name" is a file and "city_name" a city.
    if (words.some((w) => r.words.includes(w))) return r.value(hints) + suffix;
  }
  return words.join(" ") + suffix;
}
