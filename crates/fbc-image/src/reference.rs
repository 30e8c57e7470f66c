//! Telling an image reference from a path, and splitting the local transports (`oci:DIR[:TAG]`,
//! `oci-archive:FILE[:TAG]`, `docker-archive:FILE[:REF]`) the way skopeo and podman write them.

use std::path::{Path, PathBuf};

use fbc_core::catalog::image_ref::ImageRef;

/// Where an image is read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A registry reference (`host[:port]/repo[:tag][@digest]`), as written (`docker://` removed).
    Registry(String),
    /// An OCI image layout directory, and the `org.opencontainers.image.ref.name` to pick.
    OciDir { dir: PathBuf, tag: Option<String> },
    /// A tar archive of an OCI image layout.
    OciArchive { file: PathBuf, tag: Option<String> },
    /// A `docker save` / `podman save` tarball, and the `RepoTags` entry to pick.
    DockerArchive {
        file: PathBuf,
        image: Option<String>,
    },
}

/// The image `arg` names, or `None` when it is a path (an existing file or directory, or a name
/// that does not look like an image). Only a transport prefix or a name whose first component is a
/// registry host (`quay.io/…`, `localhost:5000/…`, `127.0.0.1:5000/…`) makes an image: a mistyped
/// directory never turns into a pull from Docker Hub (`docker.io/library/x` works when meant).
pub fn parse(arg: &str) -> Option<Source> {
    if let Some(rest) = arg.strip_prefix("oci:") {
        let (dir, tag) = split_local(rest);
        return Some(Source::OciDir { dir, tag });
    }
    if let Some(rest) = arg.strip_prefix("oci-archive:") {
        let (file, tag) = split_local(rest);
        return Some(Source::OciArchive { file, tag });
    }
    if let Some(rest) = arg.strip_prefix("docker-archive:") {
        let (file, image) = split_local(rest);
        return Some(Source::DockerArchive { file, image });
    }
    if let Some(rest) = arg.strip_prefix("docker://") {
        return Some(Source::Registry(rest.to_string()));
    }
    if Path::new(arg).exists() {
        return None;
    }
    let (first, _) = arg.split_once('/')?;
    let host = first == "localhost" || first.contains(['.', ':']);
    (host && ImageRef::parse(arg).is_ok()).then(|| Source::Registry(arg.to_string()))
}

/// `PATH[:SUFFIX]`: the longest prefix ending before a `:` that exists is the path; a path that
/// holds `:` itself still works.
fn split_local(rest: &str) -> (PathBuf, Option<String>) {
    if Path::new(rest).exists() {
        return (PathBuf::from(rest), None);
    }
    for (i, _) in rest.match_indices(':') {
        let (path, suffix) = (&rest[..i], &rest[i + 1..]);
        if Path::new(path).exists() {
            let suffix = (!suffix.is_empty()).then(|| suffix.to_string());
            return (PathBuf::from(path), suffix);
        }
    }
    (PathBuf::from(rest), None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_references_need_a_host() {
        assert_eq!(
            parse("quay.io/x/cat:v1"),
            Some(Source::Registry("quay.io/x/cat:v1".into()))
        );
        assert_eq!(
            parse("127.0.0.1:5000/cat@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"),
            Some(Source::Registry(
                "127.0.0.1:5000/cat@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef".into()
            ))
        );
        assert_eq!(
            parse("localhost/cat"),
            Some(Source::Registry("localhost/cat".into()))
        );
        assert_eq!(
            parse("docker://busybox"),
            Some(Source::Registry("busybox".into()))
        );
        // Paths, and names that only look like paths.
        assert_eq!(parse("catalog"), None);
        assert_eq!(parse("some/dir"), None);
        assert_eq!(parse("./x.io/cat"), None);
        assert_eq!(parse("quay.io/Not Valid"), None);
    }

    #[test]
    fn local_transports_split_at_an_existing_path() {
        let dir = tempfile::tempdir().unwrap();
        let layout = dir.path().join("lay:out");
        std::fs::create_dir(&layout).unwrap();
        let l = layout.to_str().unwrap();
        assert_eq!(
            parse(&format!("oci:{l}")),
            Some(Source::OciDir {
                dir: layout.clone(),
                tag: None
            })
        );
        assert_eq!(
            parse(&format!("oci:{l}:v1")),
            Some(Source::OciDir {
                dir: layout.clone(),
                tag: Some("v1".into())
            })
        );
        assert_eq!(
            parse(&format!("docker-archive:{l}:quay.io/x/cat:v1")),
            Some(Source::DockerArchive {
                file: layout.clone(),
                image: Some("quay.io/x/cat:v1".into())
            })
        );
        assert_eq!(
            parse("oci-archive:/no/such/file.tar"),
            Some(Source::OciArchive {
                file: PathBuf::from("/no/such/file.tar"),
                tag: None
            })
        );
    }
}
