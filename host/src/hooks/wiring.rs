//! Hook entries `kapi init` writes per host (placeholder; filled by the wiring work).
