// Protobuf timestamps as the RFC 3339 strings the JSON wire formats carry.
import { timestampMs, type Timestamp } from "@bufbuild/protobuf/wkt";

export const isoTime = (t: Timestamp | undefined): string | undefined => (t ? new Date(timestampMs(t)).toISOString() : undefined);
