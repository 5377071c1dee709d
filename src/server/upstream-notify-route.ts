// POST /upstream/midjourney/:channel/notify?token=... receives a midjourney-proxy
// upstream's notifyHook callbacks. The body is not trusted: it only wakes the
// poller of that upstream task, which then fetches the task itself.
import { timingSafeEqual } from "node:crypto";
import type { FastifyPluginAsync } from "fastify";
import type { AppDeps } from "./deps.js";

export const upstreamNotifyRoute: FastifyPluginAsync<{ deps: AppDeps }> = async (app, { deps }) => {
  app.post<{ Params: { channel: string }; Querystring: { token?: string } }>("/upstream/midjourney/:channel/notify", async (req, reply) => {
    const provider = deps.tasks.midjourney.get(req.params.channel);
    const given = Buffer.from(String(req.query.token ?? ""));
    const expected = Buffer.from(deps.tasks.notifyToken(req.params.channel));
    if (!provider || given.length !== expected.length || !timingSafeEqual(given, expected)) return reply.code(404).send({ error: "not found" });
    const id = (req.body as { id?: unknown } | undefined)?.id;
    if (typeof id === "string" || typeof id === "number") provider.wake(String(id));
    return reply.code(204).send();
  });
};
