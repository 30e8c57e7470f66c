//! Untrusted input, handled in one place. Every file, archive, image, registry answer and
//! configuration fbc-edit reads may have been written by someone else (a pull request, a release
//! configuration, a published image), so:
//!
//! - [`path`]: every path that comes from input (a template or catalog name in `ci.yaml`, a
//!   template name in `release-config.yaml`, an archive entry, a whiteout) is checked here, as a
//!   plain name or a relative path that stays inside a root fixed before anything is read
//!   ([`path::Root`]);
//! - [`file`]: files are read only when they are regular files, checked without blocking (a FIFO
//!   never hangs a read), and their size is known before any buffer is sized from it;
//! - [`limits`]: the budgets every read of input stays within (sizes, counts, times), with defaults
//!   a user can raise (`--limit NAME=VALUE`, `FBC_EDIT_LIMITS`) and one wording when one is hit;
//! - [`dir`]: directories listed within a count of entries, links judged against a root;
//! - [`git`]: `git` run on a repository that is input, with the settings that run programs
//!   overridden, revision names checked and its output read within a budget;
//! - [`reads`]: the seam every read passes, so a thread that must not read (the terminal UI's)
//!   can tell that it did not.
//!
//! Nothing here knows about catalogs.

pub mod dir;
pub mod file;
pub mod git;
pub mod keyed;
pub mod limits;
pub mod path;
pub mod reads;
