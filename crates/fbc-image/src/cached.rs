//! Images the cache already holds, opened without a registry: what a caller that must not reach
//! the network (a language server checking a template as it is typed) may still use.

use super::cache::{Cache, Namespace};
use super::{Opened, Options, Source, Want, check_kind, parse_source, registry};

/// The registry image `reference` names, when the cache holds a verified copy of it: by the
/// digest the reference carries, else by the digest it resolved to when it was last pulled.
/// Asks no registry; `None` when the cache does not hold it, when it is not a `want`, or when
/// `reference` names no registry image (a layout or an archive is read, not looked up).
pub fn cached(reference: &str, want: Want) -> Option<Opened> {
    let Some(Source::Registry(name)) = parse_source(reference) else {
        return None;
    };
    let cache = Cache::open(reference).ok()?;
    let remote = registry::Remote::new(reference, &name, &Options::default()).ok()?;
    let entry = remote
        .digest()
        .and_then(|d| cache.lookup(Namespace::Registry, d))
        .or_else(|| {
            cache
                .remembered(&remote.key())
                .and_then(|d| cache.lookup(Namespace::Registry, &d))
        })?;
    check_kind(reference, &entry.meta.kind, want).ok()?;
    Some(Opened {
        reference: reference.to_string(),
        digest: entry.meta.digest.clone(),
        kind: entry.meta.kind.clone(),
        dir: entry.dir,
        notes: Vec::new(),
    })
}
