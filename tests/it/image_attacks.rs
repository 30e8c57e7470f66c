//! Images made by an attacker: a registry that answers wrongly on purpose (`support/hostile.rs`),
//! and OCI layouts and archives built here with hostile layers. fbc-edit is run as a user runs it,
//! within a time budget, with its peak memory and what it wrote measured: every attack ends
//! quickly, in little memory, with a message naming the budget or the check that stopped it, and
//! leaves nothing in the cache but what was verified.

#[path = "../support/hostile.rs"]
mod hostile;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::bounded::{self, Run, disk_bytes, fbc_edit};
use crate::common::mkfifo;
use hostile::{Attack, Hostile, Image};
use serde_json::json;

use super::image::oci;

const CONFIGS: &str = "operators.operatorframework.io.index.configs.v1";
const CATALOG: &[u8] = b"schema: olm.package\nname: okpkg\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: okpkg\nname: stable\nentries:\n- name: okpkg.v1.0.0\n---\nschema: olm.bundle\npackage: okpkg\nname: okpkg.v1.0.0\nimage: quay.io/x/okpkg:v1.0.0\nproperties:\n- type: olm.package\n  value: {packageName: okpkg, version: 1.0.0}\n";

/// A cache, a home without credentials, and the runs made with them.
struct User {
    cache: tempfile::TempDir,
    home: tempfile::TempDir,
}

impl User {
    fn new() -> User {
        User {
            cache: tempfile::tempdir().unwrap(),
            home: tempfile::tempdir().unwrap(),
        }
    }

    fn run(&self, args: &[&str], secs: u64) -> Run {
        let mut c = fbc_edit();
        c.args(args)
            .env("FBC_EDIT_CACHE_DIR", self.cache.path())
            .env("HOME", self.home.path())
            .env("REGISTRY_AUTH_FILE", self.home.path().join("auth.json"))
            .env_remove("XDG_RUNTIME_DIR")
            .env_remove("DOCKER_CONFIG")
            .env_remove("FBC_EDIT_LIMITS")
            .env_remove("http_proxy")
            .env_remove("https_proxy")
            .env_remove("HTTP_PROXY")
            .env_remove("HTTPS_PROXY")
            .env_remove("ALL_PROXY");
        bounded::run(c, Duration::from_secs(secs))
    }

    /// What the cache holds on disk.
    fn cached_bytes(&self) -> u64 {
        disk_bytes(self.cache.path())
    }

    /// The entries of the cache (images and remembered references), by path.
    fn entries(&self) -> Vec<String> {
        ["registry", "local", "refs"]
            .iter()
            .flat_map(|ns| {
                std::fs::read_dir(self.cache.path().join(ns))
                    .into_iter()
                    .flatten()
                    .flatten()
                    .map(move |e| format!("{ns}/{}", e.file_name().to_string_lossy()))
            })
            .collect()
    }

    /// Staging directories left in the cache.
    fn staging(&self) -> Vec<String> {
        std::fs::read_dir(self.cache.path().join("tmp"))
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect()
    }
}

fn honest() -> Image {
    Image::with_files(&[("configs/", b""), ("configs/okpkg/catalog.yaml", CATALOG)])
}

/// `list REF --plain-http` against a hostile registry, with extra arguments.
fn list(user: &User, server: &Hostile, extra: &[&str], secs: u64) -> Run {
    let reference = server.reference();
    let mut args = vec!["list", reference.as_str(), "--plain-http"];
    args.extend_from_slice(extra);
    user.run(&args, secs)
}

/// Runs `attack` and checks it fails fast, in little memory, saying `says`, having read at most
/// `max_mib` MiB from the server and cached nothing.
fn refused(attack: Attack, extra: &[&str], says: &str, max_mib: u64) -> Run {
    let server = Hostile::start(honest(), "cat", "v1", attack);
    let user = User::new();
    let run = list(&user, &server, extra, 60);
    run.expect(2, 30, 200);
    assert!(run.stderr.contains(says), "{}", run.stderr);
    let sent = server.bytes_sent();
    eprintln!("served: {:.1} MiB", sent as f64 / f64::from(1 << 20));
    assert!(sent < max_mib << 20, "the client took {sent} bytes");
    assert!(user.entries().is_empty(), "cached: {:?}", user.entries());
    assert!(user.staging().is_empty(), "{:?}", user.staging());
    run
}

#[test]
fn an_endless_manifest_stops_at_its_budget() {
    refused(Attack::EndlessManifest, &[], "manifest-size budget", 64);
}

#[test]
fn a_manifest_declared_huge_is_refused_before_it_is_read() {
    refused(Attack::HugeManifest, &[], "manifest-size budget", 8);
}

#[test]
fn an_endless_error_body_is_cut_short() {
    refused(
        Attack::EndlessErrorBody,
        &[],
        "the registry answered: HTTP 500",
        8,
    );
}

#[test]
fn an_endless_token_answer_stops_at_its_budget() {
    refused(Attack::EndlessTokenBody, &[], "token-size budget", 16);
}

#[test]
fn a_huge_config_is_refused_from_its_descriptor() {
    refused(Attack::HugeConfig, &[], "config-size budget", 8);
}

#[test]
fn a_slowloris_registry_is_given_up_at_the_request_deadline() {
    let run = refused(
        Attack::Slowloris {
            route: "manifest",
            interval: Duration::from_secs(1),
        },
        &["--limit", "request-time=3s"],
        "request-time budget, 3 s",
        1,
    );
    assert!(run.elapsed < Duration::from_secs(10), "{:?}", run.elapsed);
}

#[test]
fn a_layer_whose_answer_trickles_in_is_given_up_at_the_request_deadline() {
    let run = refused(
        Attack::Slowloris {
            route: "layer",
            interval: Duration::from_secs(1),
        },
        &["--limit", "request-time=3s"],
        "request-time budget, 3 s",
        1,
    );
    assert!(run.elapsed < Duration::from_secs(15), "{:?}", run.elapsed);
}

#[test]
fn a_layer_whose_chunk_framing_trickles_in_is_given_up_by_the_clock() {
    let run = refused(
        Attack::ChunkedTrickle {
            interval: Duration::from_millis(500),
        },
        &["--limit", "slow-time=2s"],
        "slow-speed budget",
        1,
    );
    assert!(run.elapsed < Duration::from_secs(10), "{:?}", run.elapsed);
}

#[test]
fn a_layer_trickled_a_byte_at_a_time_is_given_up_when_too_slow() {
    let run = refused(
        Attack::SlowBody {
            interval: Duration::from_millis(500),
        },
        &["--limit", "slow-time=3s"],
        "slow-speed budget",
        1,
    );
    assert!(run.elapsed < Duration::from_secs(10), "{:?}", run.elapsed);
}

#[test]
fn a_redirect_loop_is_an_error_not_an_unreachable_registry() {
    refused(Attack::RedirectLoop, &[], "redirects budget, 5", 1);
}

#[test]
fn a_manifest_that_is_not_what_its_digest_says_is_refused() {
    refused(
        Attack::WrongManifestDigest,
        &[],
        "does not match its digest",
        1,
    );
}

#[test]
fn a_layer_that_is_not_what_its_digest_says_is_refused() {
    refused(Attack::WrongBlobDigest, &[], "does not match its digest", 1);
}

#[test]
fn an_answer_that_is_not_http_is_an_error() {
    refused(Attack::Malformed, &[], "not HTTP", 1);
}

#[test]
fn a_layer_listed_twenty_thousand_times_is_refused_at_once() {
    refused(
        Attack::RepeatedLayer { times: 20_000 },
        &[],
        "layers budget, 500",
        8,
    );
}

/// Runs an attack the client survives by reading only what it needs: the pull succeeds.
fn survived(attack: Attack) -> (Hostile, Run, User) {
    let server = Hostile::start(honest(), "cat", "v1", attack);
    let user = User::new();
    let run = list(&user, &server, &[], 60);
    run.expect(0, 30, 200);
    assert!(run.stdout.contains("okpkg"), "{}", run.stdout);
    (server, run, user)
}

#[test]
fn a_layer_that_never_ends_is_read_to_its_declared_size() {
    let (server, _, _) = survived(Attack::EndlessLayer);
    assert!(server.bytes_sent() < 64 << 20, "{}", server.bytes_sent());
}

#[test]
fn a_layer_longer_than_declared_is_read_to_its_declared_size() {
    survived(Attack::LayerLongerThanDeclared { extra: 1 << 20 });
}

#[test]
fn a_redirect_is_followed_without_reading_its_body() {
    let (server, _, _) = survived(Attack::RedirectWithBody);
    assert!(server.bytes_sent() < 64 << 20, "{}", server.bytes_sent());
}

#[test]
fn a_layer_listed_many_times_is_fetched_once() {
    let image = honest();
    let layer = hostile::sha256_digest(&image.layers[0]);
    let (server, _, user) = survived(Attack::RepeatedLayer { times: 50 });
    assert_eq!(server.count(&layer), 1, "{:?}", server.requests());
    assert!(user.staging().is_empty());
}

#[test]
fn credentials_stay_with_their_host_across_a_redirect() {
    let (server, _, _) = survived(Attack::CrossHostRedirect);
    let requests = server.requests();
    assert!(
        requests.iter().any(|r| r.listener == 0 && r.authorization),
        "{requests:?}"
    );
    let elsewhere: Vec<_> = requests.iter().filter(|r| r.listener == 1).collect();
    assert!(!elsewhere.is_empty(), "{requests:?}");
    assert!(elsewhere.iter().all(|r| !r.authorization), "{requests:?}");
}

#[test]
fn only_a_registry_that_cannot_be_reached_lets_the_cached_copy_stand_in() {
    let user = User::new();
    let first = Hostile::start(honest(), "cat", "v1", Attack::None);
    let port: u16 = first.addr().rsplit(':').next().unwrap().parse().unwrap();
    let reference = first.reference();
    list(&user, &first, &[], 60).expect(0, 30, 200);
    drop(first);
    // Something answers at the registry's address, wrongly: an error, not the cached copy. That
    // includes sending the request on to a place that cannot be reached.
    for attack in [
        Attack::RedirectLoop,
        Attack::Malformed,
        Attack::RedirectTo("http://127.0.0.1:1/v2/cat/manifests/v1".into()),
        Attack::RealmAt("http://127.0.0.1:1/token".into()),
    ] {
        let wrong = Hostile::start_on(port, honest(), "cat", "v1", attack.clone());
        let run = list(&user, &wrong, &[], 60);
        run.expect(2, 30, 200);
        assert!(!run.stdout.contains("okpkg"), "{attack:?}: {}", run.stdout);
        assert!(!run.stderr.contains("cannot be reached"), "{}", run.stderr);
    }
    // Nothing answers: the copy cached for the tag stands in, with a note.
    let run = user.run(&["list", &reference, "--plain-http"], 60);
    run.expect(0, 30, 200);
    assert!(run.stdout.contains("okpkg"), "{}", run.stdout);
    assert!(run.stderr.contains("cannot be reached"), "{}", run.stderr);
}

// ------------------------------------------------------------------------------ archives

/// A docker-save archive of one image: `config` as its config file, `layers` as its layer files
/// (named `layerN.tar`), no `diff_ids` unless the config says so.
fn docker_archive(path: &Path, config: &[u8], layers: &[Vec<u8>]) {
    let mut b = tar::Builder::new(std::fs::File::create(path).unwrap());
    let mut add = |name: &str, data: &[u8]| {
        let mut h = tar::Header::new_gnu();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        b.append_data(&mut h, name, data).unwrap();
    };
    let names: Vec<String> = (0..layers.len()).map(|i| format!("layer{i}.tar")).collect();
    let manifest = json!([{"Config": "config.json", "RepoTags": ["evil:latest"], "Layers": names}]);
    add("manifest.json", manifest.to_string().as_bytes());
    add("config.json", config);
    for (name, data) in names.iter().zip(layers) {
        add(name, data);
    }
    b.finish().unwrap();
}

#[test]
fn an_archive_cannot_poison_the_cached_copy_of_a_registry_image() {
    let server = Hostile::start(honest(), "cat", "v1", Attack::None);
    let user = User::new();
    let dir = tempfile::tempdir().unwrap();
    // The archive's config is the registry manifest's bytes, so its digest is the manifest's.
    let evil = hostile::tar(&[
        ("configs/", b""),
        (
            "configs/EVIL/catalog.yaml",
            b"schema: olm.package\nname: EVIL\n",
        ),
    ]);
    let archive = dir.path().join("evil.tar");
    docker_archive(&archive, &server.manifest(), &[evil]);
    let arg = format!("docker-archive:{}", archive.display());
    let run = user.run(&["list", &arg], 30);
    run.expect(0, 20, 200);
    assert!(run.stdout.contains("EVIL"), "{}", run.stdout);
    for reference in [
        server.reference(),
        format!("{}/cat@{}", server.addr(), server.manifest_digest()),
    ] {
        let run = user.run(&["list", &reference, "--plain-http"], 30);
        run.expect(0, 20, 200);
        assert!(run.stdout.contains("okpkg"), "{reference}: {}", run.stdout);
        assert!(!run.stdout.contains("EVIL"), "{reference}: {}", run.stdout);
    }
}

#[test]
fn a_docker_archive_layer_is_checked_even_without_diff_ids() {
    // Two archives with the same config and different layers are two images.
    let user = User::new();
    let dir = tempfile::tempdir().unwrap();
    let config =
        br#"{"config":{"Labels":{"operators.operatorframework.io.index.configs.v1":"/configs"}}}"#;
    let first = dir.path().join("a.tar");
    docker_archive(
        &first,
        config,
        &[hostile::tar(&[("configs/okpkg/catalog.yaml", CATALOG)])],
    );
    let second = dir.path().join("b.tar");
    docker_archive(
        &second,
        config,
        &[hostile::tar(&[(
            "configs/EVIL/catalog.yaml",
            b"schema: olm.package\nname: EVIL\n",
        )])],
    );
    let a = user.run(
        &["list", &format!("docker-archive:{}", first.display())],
        30,
    );
    a.expect(0, 20, 200);
    let b = user.run(
        &["list", &format!("docker-archive:{}", second.display())],
        30,
    );
    b.expect(0, 20, 200);
    assert!(
        a.stdout.contains("okpkg") && !a.stdout.contains("EVIL"),
        "{}",
        a.stdout
    );
    assert!(
        b.stdout.contains("EVIL") && !b.stdout.contains("okpkg"),
        "{}",
        b.stdout
    );
}

// ------------------------------------------------------------------------------ layouts

/// An OCI layout in `dir` tagged `cat` whose image has the catalog label and the given raw layer
/// blobs (gzip or plain tars, as they are to be stored).
fn layout(dir: &Path, layers: &[Vec<u8>]) -> String {
    let l = oci::Layout::new(dir);
    let config = json!({"os": "linux", "architecture": "amd64", "config": {"Labels": {CONFIGS: "/configs"}}, "rootfs": {"type": "layers", "diff_ids": []}});
    let config = l.blob(oci::OCI_CONFIG, config.to_string().as_bytes());
    let layers: Vec<_> = layers
        .iter()
        .map(|b| l.blob(oci::OCI_LAYER_GZIP, b))
        .collect();
    let manifest = json!({"schemaVersion": 2, "mediaType": oci::OCI_MANIFEST, "config": config, "layers": layers});
    let d = l.blob(oci::OCI_MANIFEST, manifest.to_string().as_bytes());
    let mut l = l;
    l.tag(&d, "cat");
    format!("oci:{}:cat", dir.display())
}

/// A raw tar header: `name` (at most 100 bytes), type `flag`, `size`, link `link`.
fn header(name: &[u8], flag: u8, size: u64, link: &[u8]) -> Vec<u8> {
    let mut h = [0u8; 512];
    h[..name.len()].copy_from_slice(name);
    h[100..107].copy_from_slice(b"0000644");
    h[124..135].copy_from_slice(format!("{size:011o}").as_bytes());
    h[156] = flag;
    h[157..157 + link.len()].copy_from_slice(link);
    h[257..263].copy_from_slice(b"ustar\0");
    h[263..265].copy_from_slice(b"00");
    h[148..156].copy_from_slice(b"        ");
    let sum: u64 = h.iter().map(|b| u64::from(*b)).sum();
    h[148..155].copy_from_slice(format!("{sum:06o}\0").as_bytes());
    h.to_vec()
}

/// A tar entry: header, data, padding.
fn entry(name: &[u8], flag: u8, data: &[u8], link: &[u8]) -> Vec<u8> {
    let mut out = header(name, flag, data.len() as u64, link);
    out.extend_from_slice(data);
    out.resize(out.len().div_ceil(512) * 512, 0);
    out
}

/// A gzip stream of `head`, then `fill` repeated `count` times, then `tail`, made without
/// holding it whole.
fn gzip_stream(head: &[u8], fill: &[u8], count: usize, tail: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(head).unwrap();
    for _ in 0..count {
        e.write_all(fill).unwrap();
    }
    e.write_all(tail).unwrap();
    e.finish().unwrap()
}

/// Opens `reference` with `list`, with extra arguments.
fn open_layout(user: &User, reference: &str, extra: &[&str], secs: u64) -> Run {
    let mut args = vec!["list", reference];
    args.extend_from_slice(extra);
    user.run(&args, secs)
}

#[test]
fn a_huge_gnu_long_name_is_refused_without_being_held() {
    let dir = tempfile::tempdir().unwrap();
    let mib = vec![b'a'; 1 << 20];
    let layer = gzip_stream(
        &header(b"././@LongLink", b'L', 256 << 20, b""),
        &mib,
        256,
        &[0; 1024],
    );
    let reference = layout(dir.path(), &[layer]);
    let user = User::new();
    let run = open_layout(&user, &reference, &[], 60);
    run.expect(2, 30, 100);
    assert!(
        run.stderr.contains("a GNU long name of 268435456 bytes"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("tar-header budget, 1 MiB"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_huge_pax_header_is_refused_without_being_held() {
    let dir = tempfile::tempdir().unwrap();
    let mib = vec![b'1'; 1 << 20];
    let layer = gzip_stream(
        &header(b"PaxHeader", b'x', 256 << 20, b""),
        &mib,
        256,
        &[0; 1024],
    );
    let reference = layout(dir.path(), &[layer]);
    let run = open_layout(&User::new(), &reference, &[], 60);
    run.expect(2, 30, 100);
    assert!(run.stderr.contains("a PAX header of"), "{}", run.stderr);
}

#[test]
fn thousands_of_links_with_long_names_keep_a_hundred_short_notes() {
    let dir = tempfile::tempdir().unwrap();
    let mut tar = entry(b"configs/", b'5', b"", b"");
    tar.extend(entry(b"configs/okpkg/catalog.yaml", b'0', CATALOG, b""));
    for i in 0..5000 {
        // A PAX path of 3,800 bytes: under every budget, so each link is a note.
        let path = format!(
            "configs/{}l{i:05}",
            format!("{}/", "d".repeat(199)).repeat(19)
        );
        let record = format!("path={path}\n");
        let len = record.len() + 5;
        let len = len + (format!("{len} ").len() - 5);
        tar.extend(entry(
            b"PaxHeader",
            b'x',
            format!("{len} {record}").as_bytes(),
            b"",
        ));
        tar.extend(entry(b"link", b'2', b"", b"/etc/passwd"));
    }
    tar.extend([0u8; 1024]);
    let reference = layout(dir.path(), &[hostile::gzip(&tar)]);
    let run = open_layout(&User::new(), &reference, &[], 60);
    run.expect(0, 30, 200);
    let notes: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("note:"))
        .collect();
    assert_eq!(
        notes.len(),
        101,
        "{}",
        &run.stderr[..run.stderr.len().min(2000)]
    );
    assert!(notes.iter().all(|n| n.len() < 400), "{}", notes[0]);
    assert!(notes[100].contains("4900 more entries"), "{}", notes[100]);
    assert!(run.stdout.contains("okpkg"));
}

#[test]
fn long_link_names_past_the_header_budget_fail_the_open_in_little_memory() {
    let dir = tempfile::tempdir().unwrap();
    let mut head = Vec::new();
    // 300 links whose PAX path is 1 MiB and more: over the tar-header budget at the first.
    let name = format!("configs/{}", "n".repeat((1 << 20) + 10));
    let record = format!("path={name}\n");
    let len = record.len() + 8;
    let len = len + (format!("{len} ").len() - 8);
    let pax = entry(
        b"PaxHeader",
        b'x',
        format!("{len} {record}").as_bytes(),
        b"",
    );
    for _ in 0..300 {
        head.extend_from_slice(&pax);
        head.extend(entry(b"link", b'2', b"", b"/etc/passwd"));
    }
    head.extend([0u8; 1024]);
    let reference = layout(dir.path(), &[hostile::gzip(&head)]);
    let run = open_layout(&User::new(), &reference, &[], 60);
    run.expect(2, 30, 100);
    assert!(run.stderr.contains("tar-header budget"), "{}", run.stderr);
}

#[test]
fn a_gzip_bomb_stops_at_the_bytes_budget_and_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    // 3 GiB of zeros in one catalog file, 3 MB compressed: gzip members of 64 MiB of zeros each,
    // one after the other (a gzip stream may be several).
    let zeros = vec![0u8; 64 << 20];
    let mut member = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    member.write_all(&zeros).unwrap();
    let member = member.finish().unwrap();
    let mut layer = hostile::gzip(&header(b"configs/bomb.yaml", b'0', 3 << 30, b""));
    for _ in 0..48 {
        layer.extend_from_slice(&member);
    }
    layer.extend(hostile::gzip(&[0; 1024]));
    assert!(layer.len() < 4 << 20, "{}", layer.len());
    let reference = layout(dir.path(), &[layer]);
    let user = User::new();
    let run = open_layout(&user, &reference, &["--limit", "extract-bytes=64MiB"], 60);
    run.expect(2, 30, 100);
    assert!(
        run.stderr.contains("extract-bytes budget, 64 MiB"),
        "{}",
        run.stderr
    );
    assert!(
        user.cached_bytes() < 1 << 20,
        "{} bytes left",
        user.cached_bytes()
    );
    assert!(user.staging().is_empty(), "{:?}", user.staging());
}

#[test]
fn hard_links_cost_names_not_bytes_in_the_cache_and_in_an_export() {
    let dir = tempfile::tempdir().unwrap();
    let mut tar = entry(b"configs/", b'5', b"", b"");
    tar.extend(entry(b"configs/okpkg/catalog.yaml", b'0', CATALOG, b""));
    tar.extend(entry(b"configs/big.json", b'0', &vec![b' '; 1 << 20], b""));
    for i in 0..4000 {
        tar.extend(entry(
            format!("configs/l{i}.json").as_bytes(),
            b'1',
            b"",
            b"configs/big.json",
        ));
    }
    tar.extend([0u8; 1024]);
    let reference = layout(dir.path(), &[hostile::gzip(&tar)]);
    let user = User::new();
    // An export extracts the image into the cache, then copies it out (no catalog load of 4 GB
    // of names).
    let out = dir.path().join("exported");
    let run = user.run(&["export", &reference, out.to_str().unwrap()], 60);
    run.expect(0, 30, 300);
    assert!(user.cached_bytes() < 8 << 20, "{}", user.cached_bytes());
    assert!(disk_bytes(&out) < 8 << 20, "{}", disk_bytes(&out));
    assert_eq!(
        std::fs::read(out.join("l3999.json")).unwrap().len(),
        1 << 20
    );
}

#[test]
fn a_whiteout_of_dot_dot_is_not_applied() {
    let dir = tempfile::tempdir().unwrap();
    let first = entry(b"configs/okpkg/catalog.yaml", b'0', CATALOG, b"");
    let mut second = entry(b"configs/.wh...", b'0', b"", b"");
    second.extend(entry(b"configs/okpkg/.wh..", b'0', b"", b""));
    second.extend([0u8; 1024]);
    let reference = layout(dir.path(), &[first, second]);
    let run = open_layout(&User::new(), &reference, &[], 30);
    run.expect(0, 20, 200);
    assert!(run.stdout.contains("okpkg"), "{}", run.stdout);
    assert!(
        run.stderr.contains("a whiteout whose name"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_layout_whose_index_is_a_fifo_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let reference = layout(
        dir.path(),
        &[hostile::gzip(&hostile::tar(&[(
            "configs/okpkg/catalog.yaml",
            CATALOG,
        )]))],
    );
    std::fs::remove_file(dir.path().join("index.json")).unwrap();
    mkfifo(&dir.path().join("index.json"));
    let run = open_layout(&User::new(), &reference, &[], 20);
    run.expect(2, 10, 100);
    assert!(
        run.stderr.contains("not a regular file (a FIFO)"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_layout_blob_linked_to_a_device_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let layer = hostile::gzip(&hostile::tar(&[("configs/okpkg/catalog.yaml", CATALOG)]));
    let digest = hostile::sha256_digest(&layer);
    let reference = layout(dir.path(), &[layer]);
    let blob: PathBuf = dir
        .path()
        .join("blobs/sha256")
        .join(digest.trim_start_matches("sha256:"));
    std::fs::remove_file(&blob).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &blob).unwrap();
    let run = open_layout(&User::new(), &reference, &[], 20);
    run.expect(2, 10, 100);
    assert!(run.stderr.contains("outside the layout"), "{}", run.stderr);
    // A FIFO inside the layout is no better.
    std::fs::remove_file(&blob).unwrap();
    mkfifo(&blob);
    let run = open_layout(&User::new(), &reference, &[], 20);
    run.expect(2, 10, 100);
    assert!(
        run.stderr.contains("not a regular file (a FIFO)"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_sparse_archive_claiming_a_huge_long_name_is_refused_in_little_memory() {
    let dir = tempfile::tempdir().unwrap();
    // 4 KiB on disk: a GNU long name of 8 GiB, the rest of the file a hole of zeros.
    let size: u64 = 8 << 30;
    let file = dir.path().join("sparse.tar");
    let mut f = std::fs::File::create(&file).unwrap();
    f.write_all(&header(b"././@LongLink", b'L', size - 1, b""))
        .unwrap();
    f.set_len(512 + size + 1024).unwrap();
    drop(f);
    let run = open_layout(
        &User::new(),
        &format!("oci-archive:{}", file.display()),
        &[],
        20,
    );
    run.expect(2, 10, 100);
    assert!(run.stderr.contains("tar-header budget"), "{}", run.stderr);
}

#[test]
fn an_interrupted_pull_leaves_nothing_after_the_next_start() {
    let server = Hostile::start(
        honest(),
        "cat",
        "v1",
        Attack::SlowBody {
            interval: Duration::from_millis(200),
        },
    );
    let user = User::new();
    let mut child = bounded::fbc_edit()
        .args(["list", &server.reference(), "--plain-http"])
        .env("FBC_EDIT_CACHE_DIR", user.cache.path())
        .env("HOME", user.home.path())
        .env("REGISTRY_AUTH_FILE", user.home.path().join("auth.json"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    // Until the pull's directory is locked and named: killed in the instant before, it leaves a
    // `.creating-` directory that sweeps keep for a grace period, by design.
    while !user.staging().iter().any(|n| n.starts_with("pull-")) {
        assert!(start.elapsed() < Duration::from_secs(20), "no pull started");
        std::thread::sleep(Duration::from_millis(20));
    }
    // As a Ctrl-C that the program has no time to clean up after.
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(!user.staging().is_empty());
    let other = tempfile::tempdir().unwrap();
    let reference = layout(
        other.path(),
        &[hostile::gzip(&hostile::tar(&[(
            "configs/okpkg/catalog.yaml",
            CATALOG,
        )]))],
    );
    open_layout(&user, &reference, &[], 30).expect(0, 20, 200);
    assert!(user.staging().is_empty(), "{:?}", user.staging());
}

#[test]
fn copies_of_repeated_layers_count_against_the_bytes_budget() {
    let dir = tempfile::tempdir().unwrap();
    // Three layers of 2 MiB each (outside /configs: nothing of them is extracted), each listed
    // twice: fetched once each, but their copies take 6 MiB.
    let mut layers = Vec::new();
    let mut rng = 1u64;
    for i in 0..3 {
        let noise: Vec<u8> = (0..2 << 20)
            .map(|_| {
                rng = rng
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (rng >> 33) as u8
            })
            .collect();
        layers.push(hostile::tar(&[(&format!("data/{i}.bin"), &noise[..])]));
    }
    layers.push(hostile::tar(&[("configs/okpkg/catalog.yaml", CATALOG)]));
    let twice: Vec<Vec<u8>> = [0, 1, 2, 0, 1, 2, 3]
        .iter()
        .map(|&i| layers[i].clone())
        .collect();
    let reference = layout(dir.path(), &twice);
    let user = User::new();
    let run = open_layout(&user, &reference, &["--limit", "extract-bytes=5MiB"], 30);
    run.expect(2, 20, 100);
    assert!(
        run.stderr.contains("extract-bytes budget, 5 MiB"),
        "{}",
        run.stderr
    );
    assert!(user.staging().is_empty(), "{:?}", user.staging());
    open_layout(&user, &reference, &["--limit", "extract-bytes=7MiB"], 30).expect(0, 20, 100);
}

#[test]
fn layers_declared_larger_than_an_image_may_be_are_refused_before_they_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let reference = layout(
        dir.path(),
        &[hostile::gzip(&hostile::tar(&[(
            "configs/okpkg/catalog.yaml",
            CATALOG,
        )]))],
    );
    // Swap the layer for a hole of 17 GiB, under a digest it was never checked against.
    let fake = format!("{:064x}", 7);
    let blob = dir.path().join("blobs/sha256").join(&fake);
    std::fs::File::create(&blob)
        .unwrap()
        .set_len(17 << 30)
        .unwrap();
    let config = json!({"os": "linux", "architecture": "amd64", "config": {"Labels": {CONFIGS: "/configs"}}});
    let l = oci::Layout::new(dir.path());
    let config = l.blob(oci::OCI_CONFIG, config.to_string().as_bytes());
    let manifest = json!({"schemaVersion": 2, "mediaType": oci::OCI_MANIFEST, "config": config,
        "layers": [{"mediaType": oci::OCI_LAYER_GZIP, "digest": format!("sha256:{fake}"), "size": 17u64 << 30}]});
    let d = l.blob(oci::OCI_MANIFEST, manifest.to_string().as_bytes());
    let mut l = l;
    l.tag(&d, "cat");
    let run = open_layout(&User::new(), &reference, &[], 30);
    run.expect(2, 5, 100);
    assert!(
        run.stderr.contains("image-size budget, 16 GiB"),
        "{}",
        run.stderr
    );
}
