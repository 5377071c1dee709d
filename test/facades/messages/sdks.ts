// Both generations of the official Anthropic SDK as real clients: 1.x sends
// Authorization: Bearer + anthropic-version 2026-10-21, 0.x sends x-api-key +
// 2023-06-01. Tests run every case against both.
import Anthropic1 from "@anthropic-ai/sdk";
import Anthropic0 from "anthropic-sdk-0";

/** The 0.x client has the same methods for what the tests use; typed as the 1.x one. */
export type Client = Anthropic1;

export interface Sdk {
  name: string;
  major: 0 | 1;
  client(baseURL: string, apiKey: string): Client;
  /** The SDK module's error classes. */
  errors: typeof Anthropic1 | typeof Anthropic0;
}

export const SDKS: Sdk[] = [
  { name: "@anthropic-ai/sdk 1.x", major: 1, client: (baseURL, apiKey) => new Anthropic1({ baseURL, apiKey, maxRetries: 0 }), errors: Anthropic1 },
  { name: "@anthropic-ai/sdk 0.x", major: 0, client: (baseURL, apiKey) => new Anthropic0({ baseURL, apiKey, maxRetries: 0 }) as unknown as Client, errors: Anthropic0 },
];

export const MODEL = "claude-sonnet-4-6";

/** A 1x1 transparent PNG. */
export const PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

export const WEATHER_TOOL = {
  name: "get_weather",
  description: "Current weather for a city",
  input_schema: { type: "object" as const, properties: { city: { type: "string" } }, required: ["city"] },
};

export const TIME_TOOL = {
  name: "get_time",
  description: "Current time in a timezone",
  input_schema: { type: "object" as const, properties: { timezone: { type: "string" } }, required: ["timezone"] },
};

export function textOf(msg: { content: { type: string; text?: string }[] }): string {
  return msg.content.map((b) => (b.type === "text" ? (b.text ?? "") : "")).join("");
}

/** Flips one character of the value inside a wrapped omnigate signature, keeping its issuer. */
export function tamper(signature: string): string {
  const plain = Buffer.from(signature, "base64").toString("utf8");
  const m = /^(omnigate:[^:]+:)(.*)$/s.exec(plain);
  if (!m) return signature.slice(0, -2) + (signature.endsWith("A=") ? "B=" : "A=");
  const value = m[2]!;
  const i = Math.floor(value.length / 2);
  const flipped = value.slice(0, i) + (value[i] === "A" ? "B" : "A") + value.slice(i + 1);
  return Buffer.from(m[1] + flipped, "utf8").toString("base64");
}
