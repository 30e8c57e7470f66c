//! Generates a large, valid file-based catalog shaped like a rendered index: one directory per package,
//! several channels with replaces chains, skips and skipRange, bundles carrying `olm.bundle.object`
//! payloads of a chosen size, and relatedImages.
//!
//! `cargo run --release --example gen_catalog -- OUT_DIR [--packages 300] [--bundles-per-package 28]
//!  [--channels 3] [--objects 2] [--object-size 16384] [--format json|yaml] [--seed 1]`
//!
//! The defaults give about 370 MB of JSON (300 packages, 8,400 bundles).

use std::path::PathBuf;

use base64::Engine as _;
use clap::{Parser, ValueEnum};
use fbc_core::catalog::json::{JsonStyle, write_json};
use fbc_core::catalog::yaml::{YamlStyle, write_document};
use fbc_core::catalog::{Entry, Kind, Node, Str};
use rayon::prelude::*;
use serde_json::{Value, json};

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Json,
    Yaml,
}

#[derive(Parser)]
struct Args {
    /// Directory to write the catalog into (created; must be empty or absent).
    out: PathBuf,
    #[arg(long, default_value_t = 300)]
    packages: usize,
    #[arg(long, default_value_t = 28)]
    bundles_per_package: usize,
    /// Channels per package: stable, fast, candidate, then extra-N channels.
    #[arg(long, default_value_t = 3)]
    channels: usize,
    /// `olm.bundle.object` properties per bundle (the first is a ClusterServiceVersion).
    #[arg(long, default_value_t = 2)]
    objects: usize,
    /// Approximate size in bytes of each manifest before base64.
    #[arg(long, default_value_t = 16000)]
    object_size: usize,
    #[arg(long, value_enum, default_value_t = Format::Json)]
    format: Format,
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// splitmix64: small, fast and deterministic.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn digest(&mut self) -> String {
        (0..4).map(|_| format!("{:016x}", self.next())).collect()
    }

    fn text(&mut self, len: usize) -> String {
        const WORDS: [&str; 12] = [
            "operator",
            "cluster",
            "reconcile",
            "upgrade",
            "storage",
            "network",
            "metrics",
            "backup",
            "resource",
            "controller",
            "namespace",
            "channel",
        ];
        let mut s = String::with_capacity(len + 16);
        while s.len() < len {
            s.push_str(WORDS[(self.next() % WORDS.len() as u64) as usize]);
            s.push(' ');
        }
        s
    }
}

fn version(k: usize) -> String {
    format!("{}.{}.{}", 1 + k / 9, (k % 9) / 3, k % 3)
}

/// Entries of one channel over bundle indices `range`: each replaces the previous one, every fifth
/// replaces the one before the previous and skips the previous, every third has a skipRange.
fn channel_entries(pkg: &str, range: std::ops::Range<usize>) -> Vec<Value> {
    let first = range.start;
    range
        .clone()
        .map(|k| {
            let name = format!("{pkg}.v{}", version(k));
            let pos = k - first;
            let mut e = json!({ "name": name });
            if pos >= 2 && pos % 5 == 4 {
                e["replaces"] = json!(format!("{pkg}.v{}", version(k - 2)));
                e["skips"] = json!([format!("{pkg}.v{}", version(k - 1))]);
            } else if pos >= 1 {
                e["replaces"] = json!(format!("{pkg}.v{}", version(k - 1)));
            }
            if pos >= 1 && pos.is_multiple_of(3) {
                e["skipRange"] = json!(format!(">={} <{}", version(first), version(k)));
            }
            e
        })
        .collect()
}

fn manifest(rng: &mut Rng, pkg: &str, k: usize, index: usize, size: usize) -> String {
    let name = format!("{pkg}.v{}", version(k));
    let body = if index == 0 {
        json!({
            "apiVersion": "operators.coreos.com/v1alpha1",
            "kind": "ClusterServiceVersion",
            "metadata": { "name": name, "annotations": { "olm.skipRange": format!("<{}", version(k)) } },
            "spec": {
                "displayName": pkg,
                "version": version(k),
                "description": rng.text(size.saturating_sub(400)),
                "installModes": [{ "type": "AllNamespaces", "supported": true }],
            }
        })
    } else {
        json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": { "name": format!("widgets{index}.{pkg}.example.com") },
            "spec": {
                "group": format!("{pkg}.example.com"),
                "names": { "kind": format!("Widget{index}"), "plural": format!("widgets{index}") },
                "versions": [{ "name": "v1", "served": true, "storage": true,
                               "schema": { "openAPIV3Schema": { "description": rng.text(size.saturating_sub(400)) } } }],
            }
        })
    };
    serde_json::to_string(&body).unwrap_or_default()
}

fn package_blobs(args: &Args, p: usize) -> Vec<Value> {
    let mut rng = Rng(args.seed.wrapping_mul(1_000_003).wrapping_add(p as u64));
    let pkg = format!("operator-{p:04}");
    let n = args.bundles_per_package.max(1);
    let mut blobs = vec![json!({
        "schema": "olm.package",
        "name": pkg,
        "defaultChannel": "stable",
        "description": format!("Generated package {pkg}."),
    })];
    for c in 0..args.channels.max(1) {
        let (name, range) = match c {
            0 => ("stable".to_string(), 0..n),
            1 => ("fast".to_string(), n / 2..n),
            2 => ("candidate".to_string(), n.saturating_sub(3)..n),
            _ => (format!("extra-{c}"), n.saturating_sub(2)..n),
        };
        blobs.push(json!({
            "schema": "olm.channel",
            "name": name,
            "package": pkg,
            "entries": channel_entries(&pkg, range),
        }));
    }
    for k in 0..n {
        let name = format!("{pkg}.v{}", version(k));
        let mut props = vec![
            json!({ "type": "olm.gvk", "value": { "group": format!("{pkg}.example.com"), "kind": "Widget", "version": "v1" } }),
            json!({ "type": "olm.gvk", "value": { "group": format!("{pkg}.example.com"), "kind": "Gadget", "version": "v1alpha1" } }),
            json!({ "type": "olm.package", "value": { "packageName": pkg, "version": version(k) } }),
        ];
        for i in 0..args.objects {
            let data = base64::engine::general_purpose::STANDARD.encode(manifest(
                &mut rng,
                &pkg,
                k,
                i,
                args.object_size,
            ));
            props.push(json!({ "type": "olm.bundle.object", "value": { "data": data } }));
        }
        blobs.push(json!({
            "schema": "olm.bundle",
            "name": name,
            "package": pkg,
            "image": format!("quay.io/example/{pkg}-bundle@sha256:{}", rng.digest()),
            "properties": props,
            "relatedImages": [
                { "name": "operator", "image": format!("quay.io/example/{pkg}@sha256:{}", rng.digest()) },
                { "name": "proxy", "image": format!("quay.io/example/{pkg}-proxy@sha256:{}", rng.digest()) },
                { "name": "", "image": format!("quay.io/example/{pkg}-bundle@sha256:{}", rng.digest()) },
            ],
        }));
    }
    blobs
}

fn to_node(v: &Value) -> Node {
    Node::new(match v {
        Value::Null => Kind::Null,
        Value::Bool(b) => Kind::Bool(*b),
        Value::Number(n) => Kind::Number(n.to_string().into()),
        Value::String(s) => Kind::String(Str::new(s.as_str())),
        Value::Array(a) => Kind::Seq(a.iter().map(to_node).collect()),
        Value::Object(o) => Kind::Map(
            o.iter()
                .map(|(k, v)| Entry {
                    key: Node::string(k.as_str()),
                    value: to_node(v),
                })
                .collect(),
        ),
    })
}

fn main() -> std::io::Result<()> {
    let args = Args::parse();
    std::fs::create_dir_all(&args.out)?;
    let no_resolve = |_: &Str| String::new();
    let sizes: Vec<std::io::Result<(usize, usize, usize)>> = (0..args.packages)
        .into_par_iter()
        .map(|p| {
            let blobs = package_blobs(&args, p);
            let mut text = String::new();
            let (mut channels, mut bundles) = (0, 0);
            for b in &blobs {
                match b["schema"].as_str() {
                    Some("olm.channel") => channels += 1,
                    Some("olm.bundle") => bundles += 1,
                    _ => {}
                }
                let node = to_node(b);
                match args.format {
                    Format::Json => {
                        write_json(&mut text, &node, JsonStyle::OPM, 0, &no_resolve);
                        text.push('\n');
                    }
                    Format::Yaml => {
                        text.push_str("---\n");
                        write_document(&mut text, &node, YamlStyle::default(), &no_resolve);
                    }
                }
            }
            let dir = args.out.join(format!("operator-{p:04}"));
            std::fs::create_dir_all(&dir)?;
            let file = match args.format {
                Format::Json => "catalog.json",
                Format::Yaml => "catalog.yaml",
            };
            std::fs::write(dir.join(file), &text)?;
            Ok((channels, bundles, text.len()))
        })
        .collect();
    let (mut channels, mut bundles, mut bytes) = (0, 0, 0);
    for s in sizes {
        let (c, b, n) = s?;
        channels += c;
        bundles += b;
        bytes += n;
    }
    println!(
        "{} packages, {channels} channels, {bundles} bundles, {} files, {bytes} bytes in {}",
        args.packages,
        args.packages,
        args.out.display()
    );
    Ok(())
}
