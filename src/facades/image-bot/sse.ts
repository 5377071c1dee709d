// Server-sent events of GET /ib/task/{id}/events: one `task` event per
// change (the task object of fetch), then `done`; `error` carries the envelope.

export function sseEvent(event: "task" | "done" | "error", data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}
