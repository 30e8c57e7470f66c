//! The engine of fbc-edit: load, check and edit OLM file-based catalogs while keeping their files
//! byte-for-byte where nothing changed; render, edit and check their opm templates and whole
//! operator repositories. It knows nothing of terminals, command lines or registries: images reach
//! templates through [`template::ImageOpener`], which the application hands in.
//!
//! ```
//! use fbc_core::catalog::{load, model::Channel, Node};
//!
//! let dir = tempfile::tempdir().unwrap();
//! std::fs::write(
//!     dir.path().join("catalog.yaml"),
//!     "schema: olm.channel\npackage: demo\nname: stable\nentries:\n  # first release\n  - name: demo.v1.0.0\n",
//! )
//! .unwrap();
//! let mut catalog = load(dir.path()).unwrap();
//! let id = catalog.index().channel("demo", "stable").unwrap();
//! assert_eq!(fbc_core::graph::heads(&Channel::read(&catalog.blob(id).value).unwrap().entries), ["demo.v1.0.0"]);
//!
//! // Promote a new entry: only its two lines are added, the comment stays.
//! catalog.edit(id, |channel| {
//!     let entry = Node::map(vec![
//!         ("name", Node::string("demo.v1.1.0")),
//!         ("replaces", Node::string("demo.v1.0.0")),
//!     ]);
//!     channel.get_field_mut("entries").and_then(Node::as_seq_mut).unwrap().push(entry);
//! });
//! let preview = catalog.preview().unwrap();
//! assert!(preview.contains("+  - name: demo.v1.1.0\n+    replaces: demo.v1.0.0\n"));
//! catalog.save().unwrap();
//! assert_eq!(
//!     std::fs::read_to_string(dir.path().join("catalog.yaml")).unwrap(),
//!     "schema: olm.channel\npackage: demo\nname: stable\nentries:\n  # first release\n  - name: demo.v1.0.0\n  - name: demo.v1.1.0\n    replaces: demo.v1.0.0\n",
//! );
//! ```

pub mod bundle;
pub mod catalog;
pub mod diff;
pub mod edit;
pub mod graph;
pub mod guard;
pub mod migrate;
pub mod repo;
pub mod template;
pub mod text;
pub mod validate;
pub mod workspace;
