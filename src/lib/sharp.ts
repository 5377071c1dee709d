// sharp is loaded on first use, not at start: libvips takes tens of megabytes
// of memory once loaded, and a gateway that serves only chat never needs it.
// Its operation cache is off: every image here is new, so the cache never
// hits and only holds up to 50 MB of finished operations.
import type Sharp from "sharp";

let loading: Promise<typeof Sharp> | undefined;

/** The sharp function, loaded by the first call. */
export function loadSharp(): Promise<typeof Sharp> {
  return (loading ??= import("sharp").then((m) => {
    m.default.cache(false);
    return m.default;
  }));
}
