// The console type-checks server types it shows (plugin status → component → SDK types), and
// one SDK type names Node's Buffer (a picture's bytes, never sent to the browser). The console
// has no Node types; this gives that name a meaning here without them.
interface Buffer extends Uint8Array {}
