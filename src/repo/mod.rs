//! Whole catalog repositories (`operators/<op>/` beside `catalogs/`), as their tooling changes
//! them: `add_ocp` opens a new OCP catalog version.

pub mod add_ocp;
