//! Generates a large file-based catalog that `opm validate` accepts, shaped like a rendered index:
//! one directory per package (`OUT_DIR/<package>/catalog.json` or `catalog.yaml`), several channels
//! with replaces chains, `skips` and `skipRange`, bundles carrying `olm.bundle.object` manifests of a
//! chosen size, and relatedImages pinned by digest.
//!
//! ```text
//! cargo run --release --example gen_catalog -- OUT_DIR [--packages 300] [--bundles-per-package 28]
//!     [--channels 3] [--objects 2] [--object-size 16384] [--format json|yaml] [--seed N]
//! ```
//!
//! The defaults give about 8,400 bundles and roughly 370 MB of JSON. Output is deterministic for a
//! given set of options.
//!
//! Channel graphs follow opm's rules: exactly one head per channel, no cycles and no stranded
//! entries. Within a channel entry `N` normally replaces `N-1`; every fourth entry instead replaces
//! `N-2` and skips `N-1` (the skipped entry is not needed on the replaces walk, and the walk carries on
//! through `N-2`, which is never skipped). Some entries also carry a `skipRange`, always together with
//! `replaces`, so they add no extra head. The oldest entry of a channel that does not start at the
//! package's first bundle replaces the bundle just before it, which lies outside the channel, as
//! rendered indexes commonly do.
//!
//! JSON is written the way `opm render` writes it: a stream of objects, each indented with four
//! spaces and followed by a newline. YAML uses `---` before every document, block style with two-space
//! indentation, sequences at the same indentation as their key, and mapping keys sorted.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use base64::Engine as _;
use clap::{Parser, ValueEnum};
use rayon::prelude::*;
use serde::Serialize as _;
use serde_json::{Map, Value, json};

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Json,
    Yaml,
}

/// Generate a large, valid file-based catalog.
#[derive(Parser)]
struct Args {
    /// Directory to write the catalog into (created if absent; must be empty).
    out_dir: PathBuf,
    /// Number of packages.
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u32).range(1..))]
    packages: u32,
    /// Bundles per package.
    #[arg(long, default_value_t = 28, value_parser = clap::value_parser!(u32).range(1..))]
    bundles_per_package: u32,
    /// Channels per package: stable (every bundle), fast (newer half), candidate (latest few), then
    /// one `stable-<major>.x` channel per major version, newest first, then `preview-<n>` channels.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    channels: u32,
    /// `olm.bundle.object` properties per bundle; the first is a ClusterServiceVersion, the others are
    /// CustomResourceDefinitions and RBAC objects.
    #[arg(long, default_value_t = 2)]
    objects: u32,
    /// Size in bytes of each manifest before base64 encoding.
    #[arg(long, default_value_t = 16384)]
    object_size: usize,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Json)]
    format: Format,
    /// Seed of the pseudo-random generator.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// splitmix64: small, fast and good enough for test data.
struct Rng(u64);

impl Rng {
    fn new(seed: u64, stream: u64) -> Self {
        let mut rng = Rng(seed ^ stream.wrapping_mul(0xD1B5_4A32_D192_ED03));
        rng.next();
        rng
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }

    /// A sha256 digest in hex (64 characters).
    fn digest(&mut self) -> String {
        let mut s = String::with_capacity(64);
        for _ in 0..4 {
            let _ = write!(s, "{:016x}", self.next());
        }
        s
    }

    /// Prose of exactly `len` bytes (ASCII, no characters that JSON escapes).
    fn prose(&mut self, len: usize) -> String {
        const WORDS: &[&str] = &[
            "the",
            "operator",
            "manages",
            "cluster",
            "resources",
            "and",
            "reconciles",
            "desired",
            "state",
            "with",
            "upgrades",
            "across",
            "namespaces",
            "for",
            "storage",
            "network",
            "metrics",
            "backup",
            "restore",
            "controller",
            "custom",
            "workloads",
            "secure",
            "certificates",
            "rolling",
            "deployment",
            "of",
            "replicas",
            "configuration",
            "policy",
            "monitoring",
            "alerts",
            "to",
            "automated",
            "lifecycle",
            "management",
            "in",
            "production",
        ];
        let mut s = String::with_capacity(len + 32);
        let mut sentence = 0;
        while s.len() < len {
            let word = self.pick(WORDS);
            if sentence == 0 {
                let mut chars = word.chars();
                if let Some(first) = chars.next() {
                    s.push(first.to_ascii_uppercase());
                    s.push_str(chars.as_str());
                }
            } else {
                s.push_str(word);
            }
            sentence += 1;
            if sentence > 8 && self.below(6) == 0 {
                s.push_str(". ");
                sentence = 0;
            } else {
                s.push(' ');
            }
        }
        s.truncate(len);
        s
    }
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Version(u64, u64, u64);

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}.{}", self.0, self.1, self.2)
    }
}

/// Strictly increasing versions: mostly patch releases, some minor and a few major ones.
fn versions(rng: &mut Rng, n: usize) -> Vec<Version> {
    let mut v = Version(rng.below(2), rng.below(4), 0);
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        if i > 0 {
            v = match rng.below(20) {
                0 => Version(v.0 + 1, 0, 0),
                1..=6 => Version(v.0, v.1 + 1, 0),
                _ => Version(v.0, v.1, v.2 + 1),
            };
        }
        out.push(v);
    }
    out
}

struct ChannelSpec {
    name: String,
    /// Bundle indices `start..end` of the package, oldest first.
    start: usize,
    end: usize,
}

fn channel_specs(count: usize, versions: &[Version]) -> Vec<ChannelSpec> {
    let n = versions.len();
    let mut majors: Vec<u64> = versions.iter().map(|v| v.0).collect();
    majors.dedup();
    majors.reverse();
    (0..count)
        .map(|c| {
            let (name, start, end) = match c {
                0 => ("stable".to_string(), 0, n),
                1 => ("fast".to_string(), n / 2, n),
                2 => ("candidate".to_string(), n.saturating_sub(4), n),
                _ => match majors.get(c - 3) {
                    Some(&m) => {
                        let start = versions.iter().position(|v| v.0 == m).unwrap_or(0);
                        let end = versions.iter().rposition(|v| v.0 == m).map_or(n, |i| i + 1);
                        (format!("stable-{m}.x"), start, end)
                    }
                    None => (
                        format!("preview-{}", c - 2 - majors.len()),
                        n.saturating_sub(2),
                        n,
                    ),
                },
            };
            ChannelSpec { name, start, end }
        })
        .collect()
}

fn channel_entries(names: &[String], versions: &[Version], spec: &ChannelSpec) -> Vec<Value> {
    (spec.start..spec.end)
        .map(|k| {
            let pos = k - spec.start;
            let mut e = Map::new();
            e.insert("name".into(), json!(names[k]));
            if pos >= 2 && pos % 4 == 3 {
                // Replace the one before the previous entry and skip the previous one. Entry `pos - 1`
                // never uses this form (3 mod 4 is never consecutive), so `k - 2` is not skipped and
                // the replaces walk goes on through it.
                e.insert("replaces".into(), json!(names[k - 2]));
                e.insert("skips".into(), json!([names[k - 1]]));
            } else if k > 0 {
                // For the oldest entry of a channel that starts later, this names a bundle outside
                // the channel, where the replaces walk simply ends.
                e.insert("replaces".into(), json!(names[k - 1]));
            }
            if pos > 0 && (pos % 3 == 2 || k + 1 == spec.end) {
                e.insert(
                    "skipRange".into(),
                    json!(format!(">={} <{}", versions[spec.start], versions[k])),
                );
            }
            Value::Object(e)
        })
        .collect()
}

const KINDS: &[&str] = &[
    "Widget", "Gadget", "Backup", "Cluster", "Gateway", "Pipeline", "Store", "Monitor", "Tenant",
    "Policy",
];

struct Gvk {
    group: String,
    kind: String,
    plural: String,
    version: &'static str,
}

/// Serialises `object`, then fills the string at `hole` (a JSON pointer) with prose so that the
/// compact JSON is `size` bytes long (or as short as possible when `size` is smaller).
fn pad_to(rng: &mut Rng, mut object: Value, hole: &str, size: usize) -> Vec<u8> {
    let base = serde_json::to_vec(&object).unwrap_or_default().len();
    let text = rng.prose(size.saturating_sub(base));
    if let Some(slot) = object.pointer_mut(hole) {
        *slot = Value::String(text);
    }
    serde_json::to_vec(&object).unwrap_or_default()
}

struct BundleCtx<'a> {
    pkg: &'a str,
    name: &'a str,
    version: Version,
    replaces: Option<&'a str>,
    gvks: &'a [Gvk],
    operator_image: &'a str,
    related: &'a [Value],
}

fn csv_manifest(rng: &mut Rng, b: &BundleCtx, size: usize) -> Vec<u8> {
    let owned: Vec<Value> = b
        .gvks
        .iter()
        .map(|g| {
            json!({
                "name": format!("{}.{}", g.plural, g.group),
                "version": g.version,
                "kind": g.kind,
                "displayName": g.kind,
                "description": format!("{} managed by {}", g.kind, b.pkg),
            })
        })
        .collect();
    let related: Vec<Value> = b
        .related
        .iter()
        .filter(|r| r["name"] != "")
        .cloned()
        .collect();
    let mut spec = json!({
        "displayName": format!("{} Operator", b.pkg),
        "description": "",
        "version": b.version.to_string(),
        "maturity": "stable",
        "minKubeVersion": "1.25.0",
        "keywords": ["operator", "example", b.pkg],
        "provider": { "name": "Example, Inc.", "url": "https://example.com" },
        "maintainers": [{ "name": "Example Maintainers", "email": "maintainers@example.com" }],
        "links": [{ "name": "Documentation", "url": format!("https://example.com/docs/{}", b.pkg) }],
        "installModes": [
            { "type": "OwnNamespace", "supported": true },
            { "type": "SingleNamespace", "supported": true },
            { "type": "MultiNamespace", "supported": false },
            { "type": "AllNamespaces", "supported": true },
        ],
        "customresourcedefinitions": { "owned": owned },
        "install": {
            "strategy": "deployment",
            "spec": {
                "deployments": [{
                    "name": format!("{}-controller-manager", b.pkg),
                    "spec": {
                        "replicas": 1,
                        "selector": { "matchLabels": { "control-plane": "controller-manager" } },
                        "template": {
                            "metadata": { "labels": { "control-plane": "controller-manager" } },
                            "spec": {
                                "containers": [{
                                    "name": "manager",
                                    "image": b.operator_image,
                                    "args": ["--leader-elect", "--health-probe-bind-address=:8081"],
                                    "resources": {
                                        "limits": { "cpu": "500m", "memory": "256Mi" },
                                        "requests": { "cpu": "10m", "memory": "64Mi" },
                                    },
                                }],
                                "serviceAccountName": format!("{}-controller-manager", b.pkg),
                            },
                        },
                    },
                }],
            },
        },
        "relatedImages": related,
    });
    if let (Some(r), Some(map)) = (b.replaces, spec.as_object_mut()) {
        map.insert("replaces".into(), json!(r));
    }
    let csv = json!({
        "apiVersion": "operators.coreos.com/v1alpha1",
        "kind": "ClusterServiceVersion",
        "metadata": {
            "name": b.name,
            "annotations": {
                "capabilities": "Basic Install",
                "categories": "Monitoring",
                "containerImage": b.operator_image,
                "createdAt": format!("2026-{:02}-{:02}T12:00:00Z", 1 + rng.below(12), 1 + rng.below(28)),
                "operators.operatorframework.io/builder": "operator-sdk-v1.39.0",
                "repository": format!("https://github.com/example/{}", b.pkg),
                "support": "Example, Inc.",
            },
        },
        "spec": spec,
    });
    pad_to(rng, csv, "/spec/description", size)
}

fn crd_manifest(rng: &mut Rng, g: &Gvk, size: usize) -> Vec<u8> {
    let crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {
            "name": format!("{}.{}", g.plural, g.group),
            "annotations": { "controller-gen.kubebuilder.io/version": "v0.16.4" },
        },
        "spec": {
            "group": g.group,
            "names": {
                "kind": g.kind,
                "listKind": format!("{}List", g.kind),
                "plural": g.plural,
                "singular": g.kind.to_ascii_lowercase(),
            },
            "scope": "Namespaced",
            "versions": [{
                "name": g.version,
                "served": true,
                "storage": true,
                "subresources": { "status": {} },
                "schema": {
                    "openAPIV3Schema": {
                        "type": "object",
                        "description": "",
                        "properties": {
                            "apiVersion": { "type": "string" },
                            "kind": { "type": "string" },
                            "metadata": { "type": "object" },
                            "spec": {
                                "type": "object",
                                "properties": {
                                    "replicas": { "type": "integer", "minimum": 0 },
                                    "paused": { "type": "boolean" },
                                    "image": { "type": "string" },
                                },
                            },
                            "status": { "type": "object", "x-kubernetes-preserve-unknown-fields": true },
                        },
                    },
                },
            }],
        },
    });
    pad_to(
        rng,
        crd,
        "/spec/versions/0/schema/openAPIV3Schema/description",
        size,
    )
}

fn role_manifest(rng: &mut Rng, pkg: &str, index: u32, gvks: &[Gvk], size: usize) -> Vec<u8> {
    let role = json!({
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": {
            "name": format!("{pkg}-role-{index}"),
            "annotations": { "description": "" },
            "labels": { "app.kubernetes.io/name": pkg, "app.kubernetes.io/managed-by": "olm" },
        },
        "rules": gvks.iter().map(|g| json!({
            "apiGroups": [g.group],
            "resources": [g.plural, format!("{}/status", g.plural)],
            "verbs": ["get", "list", "watch", "create", "update", "patch", "delete"],
        })).collect::<Vec<_>>(),
    });
    pad_to(rng, role, "/metadata/annotations/description", size)
}

struct PackageOut {
    text: Vec<u8>,
    channels: usize,
    bundles: usize,
}

fn generate_package(args: &Args, p: u32, width: usize) -> PackageOut {
    let mut rng = Rng::new(args.seed, u64::from(p));
    let pkg = format!("operator-{p:0width$}");
    let n = args.bundles_per_package as usize;
    let vers = versions(&mut rng, n);
    let names: Vec<String> = vers.iter().map(|v| format!("{pkg}.v{v}")).collect();
    let specs = channel_specs(args.channels as usize, &vers);

    let group = format!("{pkg}.example.com");
    let first = rng.below(KINDS.len() as u64) as usize;
    let gvks: Vec<Gvk> = (0..2)
        .map(|i| {
            let kind = KINDS[(first + i) % KINDS.len()].to_string();
            Gvk {
                group: group.clone(),
                plural: format!("{}s", kind.to_ascii_lowercase()),
                kind,
                version: if i == 0 { "v1" } else { "v1alpha1" },
            }
        })
        .collect();

    let mut blobs = Vec::with_capacity(1 + specs.len() + n);
    let icon = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 64 64\"><circle cx=\"32\" cy=\"32\" r=\"28\" fill=\"#{:06x}\"/></svg>",
        rng.below(0x100_0000)
    );
    blobs.push(json!({
        "schema": "olm.package",
        "name": pkg,
        "defaultChannel": "stable",
        "icon": {
            "base64data": base64::engine::general_purpose::STANDARD.encode(icon),
            "mediatype": "image/svg+xml",
        },
        "description": format!("Example operator {pkg} that manages {} resources.", gvks[0].kind),
    }));
    for spec in &specs {
        blobs.push(json!({
            "schema": "olm.channel",
            "name": spec.name,
            "package": pkg,
            "entries": channel_entries(&names, &vers, spec),
        }));
    }
    for k in 0..n {
        let image = format!("quay.io/example/{pkg}-bundle@sha256:{}", rng.digest());
        let operator_image = format!("quay.io/example/{pkg}@sha256:{}", rng.digest());
        let mut related = vec![
            json!({ "name": "", "image": image }),
            json!({ "name": "manager", "image": operator_image }),
        ];
        if rng.below(2) == 0 {
            related.push(json!({
                "name": "kube-rbac-proxy",
                "image": format!("registry.example.com/ose-kube-rbac-proxy@sha256:{}", rng.digest()),
            }));
        }
        let ctx = BundleCtx {
            pkg: &pkg,
            name: &names[k],
            version: vers[k],
            replaces: k.checked_sub(1).map(|r| names[r].as_str()),
            gvks: &gvks,
            operator_image: &operator_image,
            related: &related,
        };
        let mut props: Vec<Value> = gvks
            .iter()
            .map(|g| {
                json!({
                    "type": "olm.gvk",
                    "value": { "group": g.group, "kind": g.kind, "version": g.version },
                })
            })
            .collect();
        props.push(json!({
            "type": "olm.package",
            "value": { "packageName": pkg, "version": vers[k].to_string() },
        }));
        for i in 0..args.objects {
            let manifest = match i {
                0 => csv_manifest(&mut rng, &ctx, args.object_size),
                1 | 2 => crd_manifest(&mut rng, &gvks[(i - 1) as usize], args.object_size),
                _ => role_manifest(&mut rng, &pkg, i, &gvks, args.object_size),
            };
            props.push(json!({
                "type": "olm.bundle.object",
                "value": { "data": base64::engine::general_purpose::STANDARD.encode(manifest) },
            }));
        }
        blobs.push(json!({
            "schema": "olm.bundle",
            "name": names[k],
            "package": pkg,
            "image": image,
            "properties": props,
            "relatedImages": related,
        }));
    }

    let mut text = Vec::new();
    for blob in &blobs {
        match args.format {
            Format::Json => write_json(&mut text, blob),
            Format::Yaml => {
                let mut doc = String::from("---\n");
                if let Value::Object(map) = blob {
                    yaml_map(&mut doc, map, 0, false);
                }
                text.extend_from_slice(doc.as_bytes());
            }
        }
    }
    PackageOut {
        text,
        channels: specs.len(),
        bundles: n,
    }
}

/// One blob as opm writes it: four-space indentation, then a newline.
fn write_json(out: &mut Vec<u8>, value: &Value) {
    let formatter = serde_json::ser::PrettyFormatter::with_indent(b"    ");
    let mut ser = serde_json::Serializer::with_formatter(&mut *out, formatter);
    // Writing into a Vec cannot fail.
    let _ = value.serialize(&mut ser);
    out.push(b'\n');
}

/// Whether `s` can be written as a plain YAML scalar and still read back as the same string under
/// YAML 1.1 rules: it starts with a letter (so it is never a number, date, null or `~`), uses only
/// characters that have no meaning inside a plain scalar, and is not a YAML 1.1 boolean or null word.
fn plain_ok(s: &str) -> bool {
    let Some(first) = s.bytes().next() else {
        return false;
    };
    if !first.is_ascii_alphabetic() || s.ends_with(':') {
        return false;
    }
    if !s
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"._-/@:+=".contains(&b))
    {
        return false;
    }
    !matches!(
        s.to_ascii_lowercase().as_str(),
        "y" | "n" | "yes" | "no" | "on" | "off" | "true" | "false" | "null"
    )
}

fn yaml_scalar(out: &mut String, v: &Value) {
    match v {
        Value::String(s) if plain_ok(s) => out.push_str(s),
        // JSON string escapes are all valid in a YAML double-quoted scalar.
        Value::String(_) => out.push_str(&v.to_string()),
        Value::Array(_) => out.push_str("[]"),
        Value::Object(_) => out.push_str("{}"),
        other => out.push_str(&other.to_string()),
    }
}

fn indent(out: &mut String, n: usize) {
    out.extend(std::iter::repeat_n(' ', n));
}

fn is_block(v: &Value) -> bool {
    match v {
        Value::Array(a) => !a.is_empty(),
        Value::Object(m) => !m.is_empty(),
        _ => false,
    }
}

/// Writes a block mapping with keys sorted; the first line's indentation is already written when
/// `inline_first` is set (after `- `).
fn yaml_map(out: &mut String, map: &Map<String, Value>, at: usize, inline_first: bool) {
    let mut entries: Vec<(&String, &Value)> = map.iter().collect();
    entries.sort_by(|a, b| a.0.cmp(b.0));
    for (i, (key, value)) in entries.into_iter().enumerate() {
        if i > 0 || !inline_first {
            indent(out, at);
        }
        yaml_scalar(out, &Value::String(key.clone()));
        match value {
            Value::Object(m) if is_block(value) => {
                out.push_str(":\n");
                yaml_map(out, m, at + 2, false);
            }
            Value::Array(a) if is_block(value) => {
                out.push_str(":\n");
                yaml_seq(out, a, at, false);
            }
            _ => {
                out.push_str(": ");
                yaml_scalar(out, value);
                out.push('\n');
            }
        }
    }
}

/// Writes a block sequence whose `- ` markers sit at column `at`.
fn yaml_seq(out: &mut String, items: &[Value], at: usize, inline_first: bool) {
    for (i, item) in items.iter().enumerate() {
        if i > 0 || !inline_first {
            indent(out, at);
        }
        out.push_str("- ");
        match item {
            Value::Object(m) if is_block(item) => yaml_map(out, m, at + 2, true),
            Value::Array(a) if is_block(item) => yaml_seq(out, a, at + 2, true),
            _ => {
                yaml_scalar(out, item);
                out.push('\n');
            }
        }
    }
}

fn ensure_empty_dir(dir: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir)?;
    if std::fs::read_dir(dir)?.next().is_some() {
        anyhow::bail!(
            "{} is not empty; choose a new or empty directory",
            dir.display()
        );
    }
    Ok(())
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let started = Instant::now();
    ensure_empty_dir(&args.out_dir)?;
    let width = args.packages.to_string().len().max(4);
    let file_name = match args.format {
        Format::Json => "catalog.json",
        Format::Yaml => "catalog.yaml",
    };
    let results: Vec<anyhow::Result<(usize, usize, usize)>> = (1..=args.packages)
        .into_par_iter()
        .map(|p| {
            let out = generate_package(&args, p, width);
            let dir = args.out_dir.join(format!("operator-{p:0width$}"));
            std::fs::create_dir(&dir)?;
            let mut file = std::fs::File::create(dir.join(file_name))?;
            file.write_all(&out.text)?;
            Ok((out.channels, out.bundles, out.text.len()))
        })
        .collect();
    let (mut channels, mut bundles, mut bytes) = (0usize, 0usize, 0usize);
    for r in results {
        let (c, b, n) = r?;
        channels += c;
        bundles += b;
        bytes += n;
    }
    println!(
        "wrote {}: {} packages, {channels} channels, {bundles} bundles, {} files, {bytes} bytes ({:.1} MB) in {:.2?}",
        args.out_dir.display(),
        args.packages,
        args.packages,
        bytes as f64 / 1e6,
        started.elapsed()
    );
    Ok(())
}
