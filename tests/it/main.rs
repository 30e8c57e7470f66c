//! The integration tests, one module per area, in one test binary (one link instead of one per
//! file). `tests/mutation.rs` stays apart: its counting allocator measures the whole process.

mod add_bundle;
mod bundle;
mod bundle_content;
mod cli;
mod common;
mod diff;
mod diff_fields;
mod edit;
mod fuzz_load;
mod graph;
mod graph_filter;
mod image;
mod image_tui;
mod lint_grades;
mod load;
mod migrate;
mod path;
mod real_values;
mod remove_bundle;
mod roundtrip;
mod safety;
mod template;
mod template_cli;
mod template_edit;
mod template_preview;
mod template_render_all;
mod template_roundtrip;
mod template_tui;
mod tui;
mod tui_input;
mod tui_olm;
mod validate;
mod validate_ci;
mod write_edge_cases;
mod write_props;
