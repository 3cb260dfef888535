// noop: an empty compute kernel; timing many dispatches of it measures per-dispatch overhead.
// No bindings. Dispatch: any grid (the bench uses 1 workgroup per dispatch).

override WG: u32 = 64u;

@compute @workgroup_size(WG)
fn noop() {
}
