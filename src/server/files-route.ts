// GET /files/:id?exp=&sig= serves generated files at signed, expiring URLs.
// A bad signature or a past expiry is 403, a file that is gone 404, both as
// JSON errors; the bytes stream out with their own content type.
import type { FastifyPluginAsync, FastifyReply } from "fastify";
import { verifyFileUrl } from "../storage/blob/signed-url.js";
import type { AppDeps } from "./deps.js";

function fail(reply: FastifyReply, status: number, code: string, message: string): FastifyReply {
  return reply
    .code(status)
    .type("application/json")
    .send({ error: { message, type: "invalid_request_error", param: null, code } });
}

export const filesRoute: FastifyPluginAsync<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get<{ Params: { id: string }; Querystring: { exp?: string; sig?: string } }>("/files/:id", async (req, reply) => {
    const { id } = req.params;
    const check = verifyFileUrl(id, req.query.exp, req.query.sig, deps.files.urlSecret, deps.now());
    if (check === "bad_signature") return fail(reply, 403, "invalid_signature", "The file URL's signature is invalid.");
    if (check === "expired") return fail(reply, 403, "url_expired", "The file URL has expired.");
    const blob = await deps.files.blobs.open(id);
    if (!blob) return fail(reply, 404, "file_not_found", "The file does not exist or has been deleted.");
    const { record, stream } = blob;
    if (record.expireTime !== undefined && record.expireTime <= deps.now()) {
      stream.destroy();
      return fail(reply, 404, "file_not_found", "The file does not exist or has been deleted.");
    }
    const maxAge = Math.max(0, Number(req.query.exp) - Math.floor(deps.now() / 1000));
    return reply.type(record.mimeType).header("content-length", String(record.size)).header("cache-control", `private, max-age=${maxAge}`).header("x-content-type-options", "nosniff").send(stream);
  });
};
