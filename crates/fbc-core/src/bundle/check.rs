//! Checking a bundle directory of either format: everything opm's parser would stop at or skip, and
//! the mistakes it lets through, all at once with file and line.

use std::path::Path;

use super::read::{ListError, read_dir_sorted};
use super::{
    ANNOTATION_PREFIX, CHANNELS_KEY, DEFAULT_CHANNEL_KEY, Format, MANIFESTS_KEY, MEDIATYPE_KEY,
    METADATA_KEY, Object, PACKAGE_KEY, RegistryBundle, SUPPORTED_KINDS, TypedValue, codes, content,
    diag, str_of,
};
use crate::catalog::Severity;
use crate::catalog::diagnostic::{Diagnostic, Location};
use crate::catalog::semver_range::{Range, Version};
use crate::guard::dir::MAX_BUNDLE_ENTRIES;
use crate::guard::file::Within;
use crate::text::escape::go_quote;

use super::plain::check_plain;

/// What `check` found.
#[derive(Debug, Clone)]
pub struct Check {
    pub format: Option<Format>,
    pub diagnostics: Vec<Diagnostic>,
}

impl Check {
    pub fn errors(&self) -> usize {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count()
    }
}

/// Which bundle format a directory holds, by opm's rule: `manifests/` and `metadata/` make a
/// registry+v1 bundle; `manifests/` alone a plain+v0 bundle.
pub fn detect(dir: &Path) -> Option<Format> {
    let manifests = dir.join("manifests").is_dir();
    let metadata = dir.join("metadata").is_dir();
    match (manifests, metadata) {
        (true, true) => Some(Format::RegistryV1),
        (true, false) => Some(Format::PlainV0),
        _ => None,
    }
}

/// Checks a bundle directory of either format.
pub fn check_dir(dir: &Path) -> Check {
    let mut diagnostics = Vec::new();
    let format = detect(dir);
    match format {
        Some(Format::RegistryV1) => {
            let b = RegistryBundle::read(dir);
            diagnostics = check_registry(&b);
            // The content checks opm's bundle validator makes (not part of reading a bundle, so
            // migrate and render do not make them).
            content::check(&b, &mut diagnostics);
        }
        Some(Format::PlainV0) => diagnostics = check_plain(dir),
        None => diagnostics.push(diag(
            codes::NOT_A_BUNDLE,
            Severity::Error,
            Location::new(".", 0, 0),
            format!("{} is not a bundle: a registry+v1 bundle has manifests/ and metadata/, a plain+v0 bundle has manifests/", dir.display()),
        )),
    }
    if format.is_some() {
        stray_files(dir, &mut diagnostics, MAX_BUNDLE_ENTRIES);
    }
    diagnostics.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    Check {
        format,
        diagnostics,
    }
}

fn stray_files(dir: &Path, out: &mut Vec<Diagnostic>, max: usize) {
    let Ok(within) = Within::new(dir) else {
        return;
    };
    let entries = match read_dir_sorted(dir, &within, max) {
        Ok(e) => e,
        Err(e @ ListError::TooMany { .. }) => {
            out.push(diag(
                codes::UNREADABLE,
                Severity::Error,
                Location::new(".", 0, 0),
                format!("cannot list the bundle directory: {e}"),
            ));
            return;
        }
        Err(ListError::Io(_)) => return,
    };
    for (name, is_dir) in entries {
        if name == "manifests" || name == "metadata" || name.starts_with('.') {
            continue;
        }
        let (rel, what) = if is_dir {
            (format!("{name}/"), "directory")
        } else {
            (name.clone(), "file")
        };
        out.push(diag(
            codes::STRAY_FILE,
            Severity::Info,
            Location::new(rel, 0, 0),
            format!("{what} is no part of the bundle format: it is not rendered into the catalog"),
        ));
    }
}

/// Every check of a registry+v1 bundle.
pub fn check_registry(b: &RegistryBundle) -> Vec<Diagnostic> {
    let mut out = b.diagnostics.clone();
    check_manifests(b, &mut out);
    if let Some(csv) = b.csv() {
        check_csv(b, csv, &mut out);
    }
    if b.annotations_file.is_none() {
        if !out.iter().any(|d| d.code == codes::NOT_A_BUNDLE) {
            out.push(diag(codes::NO_ANNOTATIONS, Severity::Error, Location::new("metadata", 0, 0), "Could not find annotations file: no file in metadata/ has `annotations:` with the bundle's package and channels"));
        }
    } else {
        check_annotations(b, &mut out);
    }
    check_dependencies(&b.dependencies, &mut out);
    check_properties(&b.properties, &mut out);
    out
}

/// FBC203, FBC205, FBC207: objects to read, exactly one CSV, supported kinds, names.
fn check_manifests(b: &RegistryBundle, out: &mut Vec<Diagnostic>) {
    let whole = Location::new("manifests", 0, 0);
    if b.objects.is_empty() && !out.iter().any(|d| d.code == codes::NOT_A_BUNDLE) {
        out.push(diag(
            codes::MANIFEST,
            Severity::Error,
            whole.clone(),
            "no bundle objects found: manifests/ holds no object opm can read",
        ));
    }
    match b.csv_count {
        0 if !b.objects.is_empty() => out.push(diag(
            codes::CSV_COUNT,
            Severity::Error,
            whole,
            "no ClusterServiceVersion in manifests/",
        )),
        n if n > 1 => out.push(diag(
            codes::CSV_COUNT,
            Severity::Error,
            whole,
            format!(
                "{n} ClusterServiceVersions in manifests/: a bundle has exactly one (opm uses {})",
                b.csv().map(|c| c.file.as_str()).unwrap_or("the first")
            ),
        )),
        _ => {}
    }
    for o in &b.objects {
        if !SUPPORTED_KINDS.contains(&o.kind()) {
            let near = SUPPORTED_KINDS
                .iter()
                .find(|k| k.eq_ignore_ascii_case(o.kind()));
            let hint = match near {
                Some(k) => format!("kinds are compared exactly: write {k}"),
                None => format!("supported: {}", SUPPORTED_KINDS.join(", ")),
            };
            out.push(
                diag(
                    codes::UNSUPPORTED_KIND,
                    Severity::Error,
                    o.location(),
                    format!("kind {} is not supported in a registry+v1 bundle", o.kind()),
                )
                .with_hint(hint),
            );
        }
        if o.name().is_empty() {
            out.push(diag(
                codes::MANIFEST,
                Severity::Error,
                o.location(),
                format!("{} has no metadata.name", o.kind()),
            ));
        }
    }
}

/// FBC227: a CSV with a release and the legacy `olm.substitutesFor` annotation, which opm's bundle
/// validation refuses (the annotation made build metadata the release before `spec.release` existed).
fn release_and_substitutes(
    b: &RegistryBundle,
    csv: &Object,
    release: &str,
    out: &mut Vec<Diagnostic>,
) {
    let substitutes = csv
        .value
        .pointer("/metadata/annotations")
        .and_then(|a| a.get(crate::catalog::version_release::SUBSTITUTES_FOR))
        .and_then(serde_json::Value::as_str)
        .unwrap_or_default();
    if substitutes.is_empty() {
        return;
    }
    out.push(
        diag(
            codes::RELEASE_AND_SUBSTITUTES,
            Severity::Error,
            csv.location(),
            format!(
                "bundle {} cannot have both a release version ({}) and olm.substitutesFor annotation ({})",
                go_quote(b.name()),
                go_quote(release),
                go_quote(substitutes)
            ),
        )
        .with_hint("keep spec.release and drop the olm.substitutesFor annotation: the release orders the re-spin after the bundle it replaces"),
    );
}

/// FBC216, FBC206, FBC217: a CSV opm can read, with a name and a semver version, whose owned CRDs
/// are in the bundle and whose `olm.properties` are well formed.
fn check_csv(b: &RegistryBundle, csv: &Object, out: &mut Vec<Diagnostic>) {
    let at = csv.location();
    let bad = |m: String| diag(codes::CSV, Severity::Error, at.clone(), m);
    if let Some(p) = b.csv_type_problem() {
        out.push(bad(format!(
            "opm cannot read the ClusterServiceVersion: {p}"
        )));
    }
    if csv.name().is_empty() {
        out.push(bad(
            "the ClusterServiceVersion has no metadata.name (it names the bundle)".into(),
        ));
    }
    match b.version() {
        Err(e) => out.push(bad(format!("spec.version is not a string: {e}"))),
        Ok(v) if v.is_empty() => {
            out.push(bad("the ClusterServiceVersion has no spec.version".into()))
        }
        Ok(v) => {
            if let Err(e) = Version::parse(&v) {
                out.push(bad(format!(
                    "spec.version {v:?} is not a semantic version: {e}"
                )));
            }
        }
    }
    match b.release() {
        Err(e) => out.push(bad(format!("spec.release: {e}"))),
        Ok(release) if !release.is_empty() => release_and_substitutes(b, csv, &release, out),
        Ok(_) => {}
    }
    match b.missing_owned_crds() {
        Err(e) => out.push(diag(
            codes::OWNED_CRD_MISSING,
            Severity::Error,
            at.clone(),
            e.to_string(),
        )),
        Ok(missing) => {
            for (key, name) in missing {
                out.push(
                    diag(
                        codes::OWNED_CRD_MISSING,
                        Severity::Error,
                        at.clone(),
                        format!("the CSV owns CRD {name} ({}/{} {}), but manifests/ has no CRD serving it", key.group, key.version, key.kind),
                    )
                    .with_hint("add the CustomResourceDefinition manifest, or fix the owned entry's name, version and kind"),
                );
            }
        }
    }
    if let Err(e) = b.required_apis() {
        out.push(bad(e.to_string()));
    }
    match b.csv_annotation_properties() {
        Err(e) => out.push(diag(codes::PROPERTY, Severity::Error, at, e.to_string())),
        Ok(props) => check_properties(&props, out),
    }
}

/// Every check of the annotations file.
fn check_annotations(b: &RegistryBundle, out: &mut Vec<Diagnostic>) {
    let file = b.annotations_file.clone().unwrap_or_default();
    let whole = Location::new(&file, 0, 0);
    format_annotations(b, &whole, out);
    package_annotation(b, &whole, out);
    channel_annotations(b, &whole, out);
    for a in &b.annotations {
        if let Some(problem) = annotation_name_problem(&a.key) {
            out.push(diag(
                codes::ANNOTATION_NAME,
                Severity::Warning,
                a.location.clone(),
                problem,
            ));
        }
    }
}

/// FBC208: the mediatype, manifests and metadata annotations say registry+v1.
fn format_annotations(b: &RegistryBundle, whole: &Location, out: &mut Vec<Diagnostic>) {
    for (key, want) in [
        (MEDIATYPE_KEY, "registry+v1"),
        (MANIFESTS_KEY, "manifests/"),
        (METADATA_KEY, "metadata/"),
    ] {
        match b.annotation(key) {
            None => out.push(diag(
                codes::ANNOTATION_VALUE,
                Severity::Error,
                whole.clone(),
                format!("missing annotation {key}: {want}"),
            )),
            Some(a) if a.value != want => out.push(diag(
                codes::ANNOTATION_VALUE,
                Severity::Error,
                a.location.clone(),
                format!(
                    "{key} is {:?}; a registry+v1 bundle needs {want:?}",
                    a.value
                ),
            )),
            _ => {}
        }
    }
}

/// FBC209: a package name annotation with a valid name.
fn package_annotation(b: &RegistryBundle, whole: &Location, out: &mut Vec<Diagnostic>) {
    match b.annotation(PACKAGE_KEY) {
        None => out.push(diag(
            codes::PACKAGE_NAME,
            Severity::Error,
            whole.clone(),
            format!("missing annotation {PACKAGE_KEY}: the bundle's package name"),
        )),
        Some(a) if a.value.is_empty() => out.push(diag(
            codes::PACKAGE_NAME,
            Severity::Error,
            a.location.clone(),
            "the package name annotation is empty",
        )),
        Some(a) if !valid_package_name(&a.value) => out.push(diag(
            codes::PACKAGE_NAME,
            Severity::Error,
            a.location.clone(),
            format!(
                "package name {:?} is not a lowercase DNS label (a-z, 0-9, '-', '.')",
                a.value
            ),
        )),
        _ => {}
    }
}

/// FBC210 (channels listed, without empty or space-padded names) and FBC211 (the default channel is
/// one of them).
fn channel_annotations(b: &RegistryBundle, whole: &Location, out: &mut Vec<Diagnostic>) {
    let channels = b.channels();
    let location_of = |key: &str| {
        b.annotation(key)
            .map(|a| a.location.clone())
            .unwrap_or(whole.clone())
    };
    if channels.iter().all(|c| c.trim().is_empty()) {
        out.push(diag(
            codes::NO_CHANNELS,
            Severity::Error,
            location_of(CHANNELS_KEY),
            format!("{CHANNELS_KEY} lists no channel: a bundle is in at least one"),
        ));
    } else if channels
        .iter()
        .any(|c| c.trim().is_empty() || c.trim() != c)
    {
        out.push(diag(
            codes::NO_CHANNELS,
            Severity::Error,
            location_of(CHANNELS_KEY),
            format!("{CHANNELS_KEY} {:?} has an empty name or spaces around a name (the list is split on commas as written)", channels.join(",")),
        ));
    }
    if let Some(default) = b.default_channel()
        && !channels.is_empty()
        && !channels.iter().any(|c| c == default)
    {
        out.push(diag(
            codes::DEFAULT_CHANNEL,
            Severity::Error,
            location_of(DEFAULT_CHANNEL_KEY),
            format!(
                "default channel {default:?} is not among the bundle's channels ({})",
                channels.join(", ")
            ),
        ));
    }
}

fn valid_package_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 253
        && s.bytes()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-' || c == b'.')
        && s.as_bytes()[0].is_ascii_alphanumeric()
        && s.as_bytes()[s.len() - 1].is_ascii_alphanumeric()
}

/// Bundle annotations are named `<namespace>.bundle.<key>.<version>`; the ones under opm's own
/// namespace must be known keys.
fn annotation_name_problem(key: &str) -> Option<String> {
    const KNOWN: &[&str] = &[
        MEDIATYPE_KEY,
        MANIFESTS_KEY,
        METADATA_KEY,
        PACKAGE_KEY,
        CHANNELS_KEY,
        DEFAULT_CHANNEL_KEY,
    ];
    if KNOWN.contains(&key) {
        return None;
    }
    if let Some(k) = KNOWN.iter().find(|k| k.eq_ignore_ascii_case(key)) {
        return Some(format!(
            "annotation {key} differs from {k} only in case: opm reads it (names match in any case), other tools may not; write {k}"
        ));
    }
    let idx = key.find(".bundle.")?;
    let (namespace, rest) = (&key[..idx], &key[idx + ".bundle.".len()..]);
    let version_ok = rest.rsplit_once('.').is_some_and(|(k, v)| {
        !k.is_empty()
            && v.len() > 1
            && v.starts_with('v')
            && v[1..].bytes().all(|c| c.is_ascii_digit())
    });
    if namespace.is_empty() || !version_ok {
        return Some(format!(
            "bundle annotation {key} does not follow <namespace>.bundle.<key>.<version> (for example {PACKAGE_KEY})"
        ));
    }
    if key.starts_with(ANNOTATION_PREFIX) {
        return Some(format!(
            "unknown annotation {key}: opm knows {}",
            KNOWN.join(", ")
        ));
    }
    None
}

fn check_dependencies(deps: &[TypedValue], out: &mut Vec<Diagnostic>) {
    for d in deps {
        let loc = d.location.clone();
        let bad = |m: String| diag(codes::DEPENDENCY, Severity::Error, loc.clone(), m);
        match d.type_.as_str() {
            "" => {}
            "olm.package" => {
                let name = str_of(&d.value, "packageName");
                let range = str_of(&d.value, "version");
                if name.is_empty() {
                    out.push(bad("olm.package dependency has no packageName".into()));
                }
                if range.is_empty() {
                    out.push(bad(format!("olm.package dependency on {name:?} has no version range")));
                } else if let Err(e) = Range::parse(range) {
                    out.push(bad(format!("olm.package dependency on {name:?}: version range {range:?} is invalid: {e}")));
                }
            }
            "olm.gvk" => {
                for f in ["group", "version", "kind"] {
                    if str_of(&d.value, f).is_empty() {
                        out.push(bad(format!("olm.gvk dependency has no {f}")));
                    }
                }
            }
            "olm.constraint" => {
                const KINDS: &[&str] = &["all", "any", "not", "gvk", "package", "cel"];
                let present: Vec<&str> = KINDS.iter().copied().filter(|k| d.value.get(*k).is_some()).collect();
                if present.len() != 1 {
                    out.push(bad(format!(
                        "olm.constraint needs exactly one of {}; found {}",
                        KINDS.join(", "),
                        if present.is_empty() { "none".to_string() } else { present.join(", ") }
                    )));
                }
                if let Some(cel) = d.value.get("cel")
                    && str_of(cel, "rule").is_empty()
                {
                    out.push(bad("olm.constraint cel has no rule".into()));
                }
            }
            "olm.label" => {
                if str_of(&d.value, "label").is_empty() {
                    out.push(bad("olm.label dependency has no label".into()));
                }
            }
            other => out.push(bad(format!("unknown dependency type {other:?}: OLM knows olm.package, olm.gvk, olm.constraint and olm.label"))),
        }
    }
}

fn check_properties(props: &[TypedValue], out: &mut Vec<Diagnostic>) {
    for p in props {
        let bad = |m: String| diag(codes::PROPERTY, Severity::Error, p.location.clone(), m);
        match p.type_.as_str() {
            "olm.package" if str_of(&p.value, "packageName").is_empty() => {
                out.push(bad("olm.package property has no packageName".into()));
            }
            "olm.gvk"
                if str_of(&p.value, "kind").is_empty()
                    || str_of(&p.value, "version").is_empty() =>
            {
                out.push(bad("olm.gvk property needs version and kind".into()));
            }
            "" => out.push(bad("property has no type".into())),
            _ => {}
        }
    }
}

#[cfg(test)]
#[path = "check_tests.rs"]
mod tests;
