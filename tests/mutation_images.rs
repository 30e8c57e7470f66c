//! Hostile and broken images, kept in the suite: a catalog image and a bundle image built from
//! `testdata/`, stored as OCI layouts (layers gzip-compressed or plain), `oci-archive` files and
//! `docker-archive` files, each case mutated a few times where a reader of images is most exposed:
//! a layer's tar headers (sizes, type flags, names that climb out or whiteout `..`, GNU long names
//! and PAX headers of any size, links anywhere), its bytes and its compression, the manifest, the
//! config and the index (values of the wrong type, huge sizes, bad digests, layers listed again),
//! and the archive around them. Mutated layers and manifests are stored under their new digests, so
//! what is mutated is read rather than refused at the digest check. No case may panic, run past its
//! time budget, allocate past its memory budget, write more than its extraction budget or leave a
//! staging directory behind; an image that is not mutated opens with the packages it was built from.
//!
//! `FBC_EDIT_IMAGE_MUTATIONS=N` runs N cases instead of the default 200 (numbered and deterministic:
//! `FBC_EDIT_IMAGE_MUTATION_FIRST=K` starts at case K; `FBC_EDIT_MUTATION_VERBOSE=1` says what each
//! case did, its time and its memory).

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use fbc_core::guard::limits::{Limit, Limits};
use fbc_image::{self as image, Want};
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};

#[path = "support/mutation.rs"]
mod support;

use support::{CASE, LIVE, PEAK, Rng};

fn sha256(data: &[u8]) -> String {
    format!("sha256:{:x}", Sha256::digest(data))
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// A tar of the files below `src`, placed under `under` (sorted, fixed times).
fn tar_of(src: &Path, under: &str) -> Vec<u8> {
    fn walk(dir: &Path, rel: &str, b: &mut tar::Builder<Vec<u8>>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let name = format!("{rel}/{}", e.file_name().to_string_lossy());
            let mut h = tar::Header::new_ustar();
            h.set_mtime(0);
            if e.file_type().unwrap().is_dir() {
                h.set_entry_type(tar::EntryType::Directory);
                h.set_size(0);
                h.set_mode(0o755);
                b.append_data(&mut h, format!("{name}/"), &b""[..]).unwrap();
                walk(&e.path(), &name, b);
            } else {
                let data = std::fs::read(e.path()).unwrap();
                h.set_size(data.len() as u64);
                h.set_mode(0o644);
                b.append_data(&mut h, &name, &data[..]).unwrap();
            }
        }
    }
    let mut b = tar::Builder::new(Vec::new());
    walk(src, under, &mut b);
    b.into_inner().unwrap()
}

/// An image to mutate: its config and its layers (plain tars).
#[derive(Clone)]
struct Built {
    config: Value,
    layers: Vec<Vec<u8>>,
    /// The packages (catalog) or the files (bundle) it opens with, unmutated.
    expect: Vec<String>,
}

fn local(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

fn seeds() -> Vec<Built> {
    let catalog = local("testdata/images/catalog");
    let configs = "operators.operatorframework.io.index.configs.v1";
    let bundle = "operators.operatorframework.io.bundle.package.v1";
    let mut second = tar_of(&catalog.join("test-catalog"), "configs/test-catalog");
    // A whiteout in the second layer, of a directory the first added.
    let mut b = tar::Builder::new(Vec::new());
    let mut h = tar::Header::new_ustar();
    h.set_size(0);
    h.set_mode(0o644);
    b.append_data(&mut h, "configs/stale/.wh.gone.yaml", &b""[..])
        .unwrap();
    let whiteout = b.into_inner().unwrap();
    second.truncate(second.len() - 1024);
    second.extend_from_slice(&whiteout);
    let catalog_image = Built {
        config: json!({"architecture": "amd64", "os": "linux", "config": {"Labels": {configs: "/configs"}}}),
        layers: vec![
            tar_of(&catalog.join("declcfgs"), "configs/declcfgs"),
            second,
        ],
        expect: vec!["packages".into()],
    };
    let bundle_dir = local("testdata/bundles/foo-v0.2.0");
    let mut layer = tar_of(&bundle_dir.join("manifests"), "manifests");
    layer.truncate(layer.len() - 1024);
    layer.extend(tar_of(&bundle_dir.join("metadata"), "metadata"));
    let bundle_image = Built {
        config: json!({"architecture": "amd64", "os": "linux", "config": {"Labels": {bundle: "foo"}}}),
        layers: vec![layer],
        expect: vec!["manifests".into(), "metadata".into()],
    };
    vec![catalog_image, bundle_image]
}

/// Where the image is stored.
#[derive(Clone, Copy, Debug)]
enum Form {
    LayoutGzip,
    LayoutPlain,
    OciArchive,
    DockerArchive,
}

/// Byte offsets of the tar headers of `tar` (as far as they can be found).
fn header_offsets(tar: &[u8]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut at = 0;
    while at + 512 <= tar.len() {
        let h = &tar[at..at + 512];
        if h.iter().all(|b| *b == 0) {
            break;
        }
        out.push(at);
        let size = std::str::from_utf8(&h[124..135])
            .ok()
            .and_then(|s| u64::from_str_radix(s.trim_matches(['\0', ' ']), 8).ok())
            .unwrap_or(0);
        let data = if matches!(h[156], b'5' | b'1' | b'2') {
            0
        } else {
            size.div_ceil(512) * 512
        };
        at += 512 + data as usize;
    }
    out
}

fn set_checksum(h: &mut [u8]) {
    h[148..156].copy_from_slice(b"        ");
    let sum: u64 = h.iter().map(|b| u64::from(*b)).sum();
    h[148..155].copy_from_slice(format!("{sum:06o}\0").as_bytes());
}

/// A raw entry: header (checksum set), data, padding.
fn raw_entry(name: &[u8], flag: u8, size_field: &[u8], data: &[u8], link: &[u8]) -> Vec<u8> {
    let mut h = vec![0u8; 512];
    let n = name.len().min(100);
    h[..n].copy_from_slice(&name[..n]);
    h[100..107].copy_from_slice(b"0000644");
    let s = size_field.len().min(12);
    h[124..124 + s].copy_from_slice(&size_field[..s]);
    h[156] = flag;
    let l = link.len().min(100);
    h[157..157 + l].copy_from_slice(&link[..l]);
    h[257..263].copy_from_slice(b"ustar\0");
    h[263..265].copy_from_slice(b"00");
    set_checksum(&mut h);
    h.extend_from_slice(data);
    h.resize(h.len().div_ceil(512) * 512, 0);
    h
}

const NAMES: &[&[u8]] = &[
    b"../escape",
    b"/configs/abs.yaml",
    b"configs/../../escape",
    b"configs/.wh...",
    b"configs/.wh..",
    b"configs/.wh.",
    b".wh.configs",
    b"configs/.wh..wh..opq",
    b"manifests/.wh..wh..opq",
    b"configs/test-catalog/catalog.yaml",
    b"configs/a\\b",
    b"configs/\xff\xfe.yaml",
    b"configs",
    b"configs/declcfgs",
    b"",
];

/// One mutation of a layer's tar; returns what it did.
fn mutate_tar(rng: &mut Rng, tar: &mut Vec<u8>) -> &'static str {
    let headers = header_offsets(tar);
    let at = if headers.is_empty() {
        0
    } else {
        *rng.pick(&headers)
    };
    let sizes: &[&[u8]] = &[
        b"77777777777\0",
        b"00000000000\0",
        b"00000001000\0",
        b"zzzzzzzzzzz\0",
        &[0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
        &[0xff; 12],
        b"00000100000\0",
    ];
    match rng.below(10) {
        0 if at + 512 <= tar.len() => {
            let size = rng.pick(sizes).to_vec();
            tar[at + 124..at + 136].copy_from_slice(&size);
            set_checksum(&mut tar[at..at + 512]);
            "set a header's size"
        }
        1 if at + 512 <= tar.len() => {
            tar[at + 156] = *rng.pick(b"0125LKxgS3467V\0");
            set_checksum(&mut tar[at..at + 512]);
            "set a header's type"
        }
        2 if at + 512 <= tar.len() => {
            let name = rng.pick(NAMES);
            tar[at..at + 100].fill(0);
            tar[at..at + name.len()].copy_from_slice(name);
            set_checksum(&mut tar[at..at + 512]);
            "renamed an entry"
        }
        3 => {
            let flag = *rng.pick(b"12");
            const TARGETS: &[&[u8]] = &[
                b"configs/test-catalog/catalog.yaml",
                b"/etc/passwd",
                b"../../x",
                b"configs",
                b"manifests/foo.v0.2.0.clusterserviceversion.yaml",
            ];
            let target = *rng.pick(TARGETS);
            let name = rng.pick(NAMES);
            let e = raw_entry(name, flag, b"00000000000\0", b"", target);
            tar.splice(at..at, e);
            "added a link"
        }
        4 => {
            let flag = *rng.pick(b"LKxg");
            let len = *rng.pick(&[0usize, 7, 100, 511, 4096, 70_000]);
            let body: Vec<u8> = match flag {
                b'x' | b'g' => {
                    let value = "p".repeat(len);
                    let record = format!(" path=configs/{value}\n");
                    let n = record.len() + 1;
                    let n = n + (n.to_string().len() - 1);
                    format!("{n}{record}").into_bytes()
                }
                _ => vec![b'n'; len],
            };
            let field = if rng.below(3) == 0 {
                rng.pick(sizes).to_vec()
            } else {
                format!("{:011o}\0", body.len()).into_bytes()
            };
            let e = raw_entry(b"././@LongLink", flag, &field, &body, b"");
            tar.splice(at..at, e);
            "added a long name or PAX header"
        }
        5 => {
            if !tar.is_empty() {
                let i = rng.below(tar.len());
                tar[i] = rng.next() as u8;
            }
            "flipped a byte"
        }
        6 => {
            let cut = rng.below(tar.len() + 1);
            tar.truncate(cut);
            "truncated"
        }
        7 if !headers.is_empty() => {
            let end = headers
                .iter()
                .find(|&&h| h > at)
                .copied()
                .unwrap_or(tar.len());
            let copy = tar[at..end].to_vec();
            for _ in 0..1 + rng.below(50) {
                tar.splice(at..at, copy.iter().copied());
            }
            "repeated an entry"
        }
        8 => {
            let name = rng.pick(NAMES);
            let data = vec![b'd'; *rng.pick(&[0usize, 1, 513, 100_000])];
            let e = raw_entry(
                name,
                b'0',
                format!("{:011o}\0", data.len()).as_bytes(),
                &data,
                b"",
            );
            tar.splice(at..at, e);
            "added a file"
        }
        _ => {
            tar.extend_from_slice(&vec![0u8; rng.below(4) * 512]);
            tar.extend((0..rng.below(2000)).map(|_| rng.next() as u8));
            "added bytes after the end"
        }
    }
}

/// One mutation of a JSON document (manifest, config or index); returns what it did.
fn mutate_json(rng: &mut Rng, doc: &mut Value, layers: usize) -> &'static str {
    let wrong = [
        json!(null),
        json!(-1),
        json!(1e300),
        json!("sha256:../../etc"),
        json!([]),
        json!({}),
        json!(u64::MAX),
        json!("x".repeat(300)),
    ];
    match rng.below(6) {
        0 => {
            if let Some(l) = doc["layers"].as_array_mut()
                && !l.is_empty()
            {
                let i = rng.below(l.len());
                l[i]["size"] = rng.pick(&wrong).clone();
            }
            "gave a layer a bad size"
        }
        1 => {
            if let Some(l) = doc["layers"].as_array_mut()
                && !l.is_empty()
            {
                let i = rng.below(l.len());
                l[i]["digest"] = rng.pick(&wrong).clone();
            }
            "gave a layer a bad digest"
        }
        2 => {
            if let Some(l) = doc["layers"].as_array_mut()
                && !l.is_empty()
            {
                let first = l[0].clone();
                for _ in 0..rng.below(layers * 300 + 2) {
                    l.push(first.clone());
                }
            }
            "listed a layer again and again"
        }
        3 => {
            doc["config"] = rng.pick(&wrong).clone();
            "gave the config a wrong value"
        }
        4 => {
            let keys = [
                "schemaVersion",
                "mediaType",
                "layers",
                "manifests",
                "rootfs",
            ];
            let key = *rng.pick(&keys);
            doc[key] = rng.pick(&wrong).clone();
            "gave a field a wrong value"
        }
        _ => {
            doc["manifests"] = json!([{"digest": "sha256:0000", "platform": {"os": "linux"}}]);
            "made it an index of nothing"
        }
    }
}

/// Writes `image` in `form` under `dir`, mutating it `n` times; returns its reference.
fn store(
    dir: &Path,
    image: &Built,
    form: Form,
    rng: &mut Rng,
    n: usize,
    done: &mut Vec<String>,
) -> String {
    let mut layers = image.layers.clone();
    let mut config = image.config.clone();
    let mut manifest_edits = Vec::new();
    let mut archive_edits = 0;
    for _ in 0..n {
        match rng.below(10) {
            0..=5 if !layers.is_empty() => {
                let i = rng.below(layers.len());
                done.push(format!(
                    "layer {}: {}",
                    i + 1,
                    mutate_tar(rng, &mut layers[i])
                ));
            }
            6 => {
                let what = mutate_json(rng, &mut config, layers.len());
                done.push(format!("config: {what}"));
            }
            7 | 8 => manifest_edits.push(rng.next()),
            _ => archive_edits += 1,
        }
    }
    let compress = !matches!(form, Form::LayoutPlain | Form::DockerArchive);
    let mut blobs: Vec<(String, Vec<u8>)> = Vec::new();
    let mut descriptors = Vec::new();
    for l in &layers {
        let blob = if compress { gzip(l) } else { l.clone() };
        let mut blob = blob;
        if compress && n > 0 && rng.below(12) == 0 && !blob.is_empty() {
            let i = rng.below(blob.len());
            blob[i] ^= 1 << rng.below(8);
            done.push("flipped a bit of a compressed layer".into());
        }
        let d = sha256(&blob);
        descriptors.push(json!({"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip", "digest": d, "size": blob.len()}));
        blobs.push((d, blob));
    }
    let config_bytes = serde_json::to_vec(&config).unwrap();
    let config_digest = sha256(&config_bytes);
    let mut manifest = json!({
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": config_digest, "size": config_bytes.len()},
        "layers": descriptors,
    });
    for seed in manifest_edits {
        let mut r = Rng(seed);
        let what = mutate_json(&mut r, &mut manifest, layers.len());
        done.push(format!("manifest: {what}"));
    }
    let manifest_bytes = serde_json::to_vec(&manifest).unwrap();
    let manifest_digest = sha256(&manifest_bytes);
    blobs.push((config_digest.clone(), config_bytes.clone()));
    blobs.push((manifest_digest.clone(), manifest_bytes.clone()));
    let index = json!({"schemaVersion": 2, "manifests": [{"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": manifest_digest, "size": manifest_bytes.len(), "annotations": {"org.opencontainers.image.ref.name": "v1"}}]});
    let layout = dir.join("layout");
    let mut files: Vec<(String, Vec<u8>)> = vec![
        (
            "oci-layout".into(),
            br#"{"imageLayoutVersion":"1.0.0"}"#.to_vec(),
        ),
        ("index.json".into(), serde_json::to_vec(&index).unwrap()),
    ];
    for (d, b) in &blobs {
        files.push((
            format!("blobs/sha256/{}", d.trim_start_matches("sha256:")),
            b.clone(),
        ));
    }
    match form {
        Form::LayoutGzip | Form::LayoutPlain => {
            for (name, data) in &files {
                let p = layout.join(name);
                std::fs::create_dir_all(p.parent().unwrap()).unwrap();
                std::fs::write(p, data).unwrap();
            }
            format!("oci:{}:v1", layout.display())
        }
        Form::OciArchive => {
            let file = dir.join("image.tar");
            std::fs::write(&file, archive(&files, rng, archive_edits, done)).unwrap();
            format!("oci-archive:{}:v1", file.display())
        }
        Form::DockerArchive => {
            let mut docker: Vec<(String, Vec<u8>)> = Vec::new();
            let names: Vec<String> = (0..layers.len())
                .map(|i| format!("{i}/layer.tar"))
                .collect();
            docker.push((
                "manifest.json".into(),
                serde_json::to_vec(
                    &json!([{"Config": "config.json", "RepoTags": ["x/img:v1"], "Layers": names}]),
                )
                .unwrap(),
            ));
            docker.push(("config.json".into(), config_bytes));
            for (name, (_, blob)) in names.iter().zip(&blobs) {
                docker.push((name.clone(), blob.clone()));
            }
            let file = dir.join("docker.tar");
            std::fs::write(&file, archive(&docker, rng, archive_edits, done)).unwrap();
            format!("docker-archive:{}", file.display())
        }
    }
}

/// A tar of `files`, its own headers mutated `edits` times.
fn archive(
    files: &[(String, Vec<u8>)],
    rng: &mut Rng,
    edits: usize,
    done: &mut Vec<String>,
) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    for (name, data) in files {
        let mut h = tar::Header::new_ustar();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        b.append_data(&mut h, name, &data[..]).unwrap();
    }
    let mut out = b.into_inner().unwrap();
    for _ in 0..edits {
        done.push(format!("archive: {}", mutate_tar(rng, &mut out)));
    }
    out
}

/// Bytes below `dir`.
fn disk_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => disk_bytes(&e.path()),
            Ok(t) if t.is_file() => e.metadata().map(|m| m.len()).unwrap_or(0),
            _ => 0,
        })
        .sum()
}

/// What an opened image holds: the names at the top of its directory.
fn top_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn mutated_images_never_panic_hang_or_blow_up() {
    let cases: u64 = std::env::var("FBC_EDIT_IMAGE_MUTATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let first: u64 = std::env::var("FBC_EDIT_IMAGE_MUTATION_FIRST")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let verbose = std::env::var_os("FBC_EDIT_MUTATION_VERBOSE").is_some();
    let time_budget = Duration::from_secs(20);
    let memory_budget: usize = 256 << 20;
    let extract_budget: u64 = 64 << 20;
    let cache = tempfile::tempdir().unwrap();
    // SAFETY: this binary's only test sets it before any thread reads the environment.
    unsafe {
        std::env::set_var("FBC_EDIT_CACHE_DIR", cache.path());
    }
    let options = image::Options {
        refresh: true,
        limits: Limits::default()
            .with(Limit::ExtractBytes, extract_budget)
            .with(Limit::ExtractFiles, 10_000),
        ..Default::default()
    };
    let seeds = seeds();
    let forms = [
        Form::LayoutGzip,
        Form::LayoutPlain,
        Form::OciArchive,
        Form::DockerArchive,
    ];
    let started = Instant::now();
    let mut slowest = (Duration::ZERO, 0);
    let mut hungriest = (0usize, 0);
    for case in first..first + cases {
        let mut rng = Rng(case);
        let which = rng.below(seeds.len());
        let form = *rng.pick(&forms);
        // One case in ten is left whole: it must open as it was built.
        let n = if case % 10 == 0 { 0 } else { 1 + rng.below(3) };
        let tmp = tempfile::tempdir().unwrap();
        let mut done = Vec::new();
        let reference = store(tmp.path(), &seeds[which], form, &mut rng, n, &mut done);
        let what = format!(
            "case {case}: {form:?} of seed {which} ({})",
            done.join(", ")
        );
        CASE.store(case, Ordering::Relaxed);
        let base = LIVE.load(Ordering::Relaxed);
        PEAK.store(base, Ordering::Relaxed);
        let t0 = Instant::now();
        let (tx, rx) = std::sync::mpsc::channel();
        {
            let reference = reference.clone();
            let options = options.clone();
            std::thread::spawn(move || {
                let r = std::panic::catch_unwind(|| image::open(&reference, &options, Want::Any));
                let _ = tx.send(
                    r.map(|o| o.map(|o| (o.dir, o.kind)).map_err(|e| e.to_string()))
                        .map_err(|e| {
                            e.downcast_ref::<String>()
                                .cloned()
                                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                                .unwrap_or_default()
                        }),
                );
            });
        }
        let opened = match rx.recv_timeout(time_budget) {
            Ok(Ok(r)) => r,
            Ok(Err(panic)) => panic!("{what}: panicked: {panic}"),
            Err(_) => panic!("{what}: still running after {time_budget:?}"),
        };
        let took = t0.elapsed();
        let peak = PEAK.load(Ordering::Relaxed).saturating_sub(base);
        assert!(
            peak <= memory_budget,
            "{what}: used {} MB, over the {} MB budget",
            peak >> 20,
            memory_budget >> 20
        );
        let written = disk_bytes(cache.path());
        assert!(
            written <= extract_budget + (1 << 20),
            "{what}: the cache holds {written} bytes, over the extraction budget"
        );
        let staging: Vec<_> = std::fs::read_dir(cache.path().join("tmp"))
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert!(staging.is_empty(), "{what}: left {staging:?}");
        if n == 0 {
            let (dir, _) = opened
                .as_ref()
                .unwrap_or_else(|e| panic!("{what}: the image as built does not open: {e}"));
            let names = top_names(dir);
            let want = &seeds[which].expect;
            if want == &["packages".to_string()] {
                let catalog = fbc_core::catalog::load(dir).unwrap();
                assert!(
                    catalog.index().packages().next().is_some(),
                    "{what}: no packages in {names:?}"
                );
            } else {
                assert_eq!(&names, want, "{what}");
            }
        }
        if verbose {
            eprintln!(
                "{what}: {took:.1?}, {:.1} MB: {}",
                peak as f64 / (1u64 << 20) as f64,
                match &opened {
                    Ok(_) => "opened".to_string(),
                    Err(e) => e.clone(),
                }
            );
        }
        if took > slowest.0 {
            slowest = (took, case);
        }
        if peak > hungriest.0 {
            hungriest = (peak, case);
        }
        std::fs::remove_dir_all(cache.path()).unwrap();
        std::fs::create_dir_all(cache.path()).unwrap();
    }
    eprintln!(
        "{cases} image mutation cases in {:.1?} ({:.1?} per case); slowest: case {} ({:.1?}); most memory: case {} ({:.1} MB)",
        started.elapsed(),
        started.elapsed() / cases.max(1) as u32,
        slowest.1,
        slowest.0,
        hungriest.1,
        hungriest.0 as f64 / (1u64 << 20) as f64
    );
}
