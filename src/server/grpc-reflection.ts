// gRPC server reflection (grpc.reflection.v1 and v1alpha) for the h2c
// listener, so grpcurl, buf curl and Postman can call the core without the
// .proto files. It answers from the descriptors the services were generated
// with: the services listed, a file by name or by a symbol it defines, each
// with the files it imports. Reflection tells nothing a caller's key guards
// (the protos are public), so it needs no key.
import { toBinary, type DescFile, type DescService } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { Code, type ConnectRouter } from "@connectrpc/connect";
import * as v1 from "../../gen/grpc/reflection/v1/reflection_pb.js";
import * as v1alpha from "../../gen/grpc/reflection/v1alpha/reflection_pb.js";

/** The services a routes function registers. */
export function servicesOf(routes: (router: ConnectRouter) => void): DescService[] {
  const found: DescService[] = [];
  const router = {
    handlers: [],
    service(service: DescService) {
      found.push(service);
      return router;
    },
    rpc() {
      return router;
    },
  } as unknown as ConnectRouter;
  routes(router);
  return found;
}

/** A file and everything it imports, each once, the file first. */
function withDependencies(file: DescFile): DescFile[] {
  const out: DescFile[] = [];
  const seen = new Set<string>();
  const visit = (f: DescFile) => {
    if (seen.has(f.proto.name)) return;
    seen.add(f.proto.name);
    out.push(f);
    f.dependencies.forEach(visit);
  };
  visit(file);
  return out;
}

type Answer =
  | { case: "fileDescriptorResponse"; value: { fileDescriptorProto: Uint8Array[] } }
  | { case: "allExtensionNumbersResponse"; value: { baseTypeName: string; extensionNumber: number[] } }
  | { case: "listServicesResponse"; value: { service: { name: string }[] } }
  | { case: "errorResponse"; value: { errorCode: number; errorMessage: string } };

type Question = v1.ServerReflectionRequest["messageRequest"];

/** What the reflection service knows: every file the services (its own included) need, by name and by the symbols they define. */
export function reflectionIndex(served: DescService[]) {
  const services = [...served, v1.ServerReflection, v1alpha.ServerReflection];
  const byName = new Map<string, DescFile>();
  const bySymbol = new Map<string, DescFile>();
  for (const s of services) {
    for (const f of withDependencies(s.file)) {
      if (byName.has(f.proto.name)) continue;
      byName.set(f.proto.name, f);
      const add = (typeName: string) => bySymbol.set(typeName, f);
      f.services.forEach((svc) => {
        add(svc.typeName);
        svc.methods.forEach((m) => add(`${svc.typeName}.${m.name}`));
      });
      const messages = [...f.messages];
      while (messages.length) {
        const m = messages.pop()!;
        add(m.typeName);
        messages.push(...m.nestedMessages);
        m.nestedEnums.forEach((e) => add(e.typeName));
      }
      f.enums.forEach((e) => add(e.typeName));
    }
  }
  const names = services.map((s) => s.typeName);
  const files = (f: DescFile): Answer => ({ case: "fileDescriptorResponse", value: { fileDescriptorProto: withDependencies(f).map((d) => toBinary(FileDescriptorProtoSchema, d.proto)) } });
  const notFound = (what: string): Answer => ({ case: "errorResponse", value: { errorCode: Code.NotFound, errorMessage: `${what} not found` } });

  return function answer(q: Question): Answer {
    switch (q.case) {
      case "listServices":
        return { case: "listServicesResponse", value: { service: names.map((name) => ({ name })) } };
      case "fileByFilename": {
        const f = byName.get(q.value);
        return f ? files(f) : notFound(`file ${q.value}`);
      }
      case "fileContainingSymbol": {
        const f = bySymbol.get(q.value.replace(/^\./, ""));
        return f ? files(f) : notFound(`symbol ${q.value}`);
      }
      case "allExtensionNumbersOfType":
        // No message of these services declares extensions.
        return bySymbol.has(q.value) ? { case: "allExtensionNumbersResponse", value: { baseTypeName: q.value, extensionNumber: [] } } : notFound(`type ${q.value}`);
      case "fileContainingExtension":
        return notFound(`extension ${q.value.extensionNumber} of ${q.value.containingType}`);
      default:
        return { case: "errorResponse", value: { errorCode: Code.InvalidArgument, errorMessage: "the request names no question" } };
    }
  };
}

/** Routes for both reflection services over the given services. */
export function reflectionRoutes(services: DescService[]): (router: ConnectRouter) => void {
  const answer = reflectionIndex(services);
  return (router) => {
    router.service(v1.ServerReflection, {
      async *serverReflectionInfo(requests) {
        for await (const req of requests) yield { validHost: req.host, originalRequest: req, messageResponse: answer(req.messageRequest) };
      },
    });
    router.service(v1alpha.ServerReflection, {
      async *serverReflectionInfo(requests) {
        for await (const req of requests) yield { validHost: req.host, originalRequest: req, messageResponse: answer(req.messageRequest as Question) };
      },
    });
  };
}
