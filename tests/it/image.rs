//! Catalog and bundle images opened where they live: a real registry (CNCF distribution, anonymous
//! and with basic auth) fed by skopeo, OCI layouts and image archives. Images are built here from
//! `testdata/images` (a catalog image in two layers, the second whiting out a package the first
//! added), and from `testdata/bundles`. Each test starts its own registry on a free loopback port.

#[path = "../support/oci.rs"]
pub(crate) mod oci;
#[path = "../support/token.rs"]
mod token;

use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;
use oci::{Item, Layout, Registry, items_from_dir, skopeo_copy, tar};

const CONFIGS: &str = "operators.operatorframework.io.index.configs.v1";

fn testdata(p: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("testdata")
        .join(p)
}

fn catalog_dir() -> PathBuf {
    testdata("images/catalog")
}

/// fbc-edit with its own cache directory and no credentials from the user's files.
struct Fbc {
    cache: tempfile::TempDir,
    home: tempfile::TempDir,
    auth_file: Option<PathBuf>,
}

impl Fbc {
    fn new() -> Fbc {
        Fbc {
            cache: tempfile::tempdir().unwrap(),
            home: tempfile::tempdir().unwrap(),
            auth_file: None,
        }
    }

    fn cmd(&self) -> Command {
        let mut c = Command::cargo_bin("fbc-edit").unwrap();
        c.env("FBC_EDIT_CACHE_DIR", self.cache.path())
            .env("HOME", self.home.path())
            .env_remove("XDG_RUNTIME_DIR")
            .env_remove("DOCKER_CONFIG")
            .env(
                "REGISTRY_AUTH_FILE",
                self.auth_file
                    .clone()
                    .unwrap_or_else(|| self.home.path().join("auth.json")),
            );
        c
    }

    fn run(&self, args: &[&str]) -> Output {
        self.cmd().args(args).output().unwrap()
    }

    /// Standard output of a command that must succeed.
    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "fbc-edit {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    /// Standard error of a command that must fail with exit status 2.
    fn fails(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "fbc-edit {args:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stderr).unwrap()
    }
}

/// `list DIR` of the directory the catalog image is built from.
fn expected_list() -> String {
    let out = Command::cargo_bin("fbc-edit")
        .unwrap()
        .args(["list", catalog_dir().to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

/// The catalog image's two layers: the first adds part of the catalog, a package that the second
/// removes again with a whiteout, and files outside /configs; the second adds the rest.
fn catalog_layers() -> Vec<Vec<u8>> {
    let mut first = vec![
        Item::Dir("bin".into()),
        Item::File("bin/opm".into(), b"not really opm".to_vec()),
    ];
    first.extend(items_from_dir(
        &catalog_dir().join("declcfgs"),
        "configs/declcfgs",
    ));
    first.extend(items_from_dir(&testdata("images/stale"), "configs/stale"));
    let mut second = items_from_dir(&catalog_dir().join("test-catalog"), "configs/test-catalog");
    second.push(Item::File("configs/.wh.stale".into(), Vec::new()));
    vec![tar(&first), tar(&second)]
}

/// An OCI layout holding `cat:v1` (the catalog image), `bundle:v1` (the foo bundle) and
/// `plain:v1` (an image with neither labels nor /configs).
fn layout(dir: &Path) -> Layout {
    let mut l = Layout::new(dir);
    let cat = l.image(&[(CONFIGS, "/configs")], &catalog_layers(), "amd64");
    l.tag(&cat, "cat:v1");
    let bundle = tar(&items_from_dir(
        &testdata("bundles/foo-v0.2.0/manifests"),
        "manifests",
    ));
    let metadata = tar(&items_from_dir(
        &testdata("bundles/foo-v0.2.0/metadata"),
        "metadata",
    ));
    let b = l.image(
        &[
            ("operators.operatorframework.io.bundle.package.v1", "foo"),
            (
                "operators.operatorframework.io.bundle.mediatype.v1",
                "registry+v1",
            ),
        ],
        &[bundle, metadata],
        "amd64",
    );
    l.tag(&b, "bundle:v1");
    let plain = l.image(
        &[("org.opencontainers.image.title", "plain")],
        &[tar(&[Item::File("etc/motd".into(), b"hello".to_vec())])],
        "amd64",
    );
    l.tag(&plain, "plain:v1");
    l
}

fn push(layout: &Layout, tag: &str, registry: &Registry, creds: Option<&str>) {
    let from = format!("oci:{}:{tag}", layout.dir.display());
    let to = format!("docker://{}/{tag}", registry.addr);
    let mut args = vec!["--all", "--dest-tls-verify=false"];
    let creds_arg;
    if let Some(c) = creds {
        creds_arg = format!("--dest-creds={c}");
        args.push(&creds_arg);
    }
    args.push(&from);
    args.push(&to);
    skopeo_copy(&args);
}

/// Every file below `dir` with its bytes, by relative path.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(base, &p, out);
            } else {
                out.push((
                    p.strip_prefix(base).unwrap().display().to_string(),
                    std::fs::read(&p).unwrap(),
                ));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

#[test]
fn a_catalog_image_lists_like_its_directory_from_a_registry_a_layout_and_archives() {
    let work = tempfile::tempdir().unwrap();
    let l = layout(&work.path().join("layout"));
    let registry = Registry::start(None);
    push(&l, "cat:v1", &registry, None);
    let oci_archive = work.path().join("cat.oci.tar");
    let docker_archive = work.path().join("cat.docker.tar");
    let from = format!("oci:{}:cat:v1", l.dir.display());
    skopeo_copy(&[
        &from,
        &format!("oci-archive:{}:cat:v1", oci_archive.display()),
    ]);
    skopeo_copy(&[
        &from,
        &format!(
            "docker-archive:{}:example.com/cat:v1",
            docker_archive.display()
        ),
    ]);
    let expected = expected_list();
    assert!(expected.contains("prometheus"), "{expected}");
    let fbc = Fbc::new();
    let remote = format!("{}/cat:v1", registry.addr);
    let sources = [
        remote.clone(),
        format!("oci:{}:cat:v1", l.dir.display()),
        format!("oci-archive:{}", oci_archive.display()),
        format!("docker-archive:{}", docker_archive.display()),
    ];
    for source in &sources {
        assert_eq!(
            fbc.ok(&["list", source, "--plain-http"]),
            expected,
            "list {source}"
        );
    }
    // `render IMAGE` prints every object of the catalog.
    let rendered = fbc.ok(&["render", &sources[1]]);
    let objects = rendered.lines().filter(|l| *l == "{").count();
    let catalog = fbc_core::catalog::load(&catalog_dir()).unwrap();
    assert_eq!(objects, catalog.live_blobs().count(), "{rendered}");
    // Deeper listings and checks read the same catalog.
    assert_eq!(
        fbc.ok(&["list", &remote, "bar", "--plain-http"]),
        fbc.ok(&["list", catalog_dir().to_str().unwrap(), "bar"])
    );
    fbc.ok(&["validate", &remote, "--plain-http"]);
    // Graphs and upgrade paths read the image's catalog like the directory.
    let dir = catalog_dir().to_str().unwrap().to_string();
    for args in [
        vec!["graph", "-p", "foo"],
        vec!["graph", "-p", "bar", "--format", "mermaid"],
        vec!["path", "-p", "foo", "-c", "beta", "--from", "0.1.0"],
        vec!["path", "-p", "foo", "--from", "0.1.0", "--olm", "v1"],
    ] {
        let from_dir = fbc.ok(&[&[args[0], dir.as_str()][..], &args[1..]].concat());
        assert!(!from_dir.is_empty(), "{args:?}");
        for source in [&remote, &sources[1]] {
            let mut with_image = vec![args[0], source.as_str()];
            with_image.extend(&args[1..]);
            with_image.push("--plain-http");
            assert_eq!(fbc.ok(&with_image), from_dir, "{with_image:?}");
        }
    }
    let diff = fbc.run(&[
        "diff",
        &remote,
        catalog_dir().to_str().unwrap(),
        "--plain-http",
    ]);
    assert_eq!(diff.status.code(), Some(0), "{diff:?}");
    // Exported, the image is the directory it was built from, byte for byte: the whited-out
    // package and the files outside /configs are gone.
    let out = work.path().join("exported");
    let exported = fbc.run(&["export", &remote, out.to_str().unwrap(), "--plain-http"]);
    assert!(exported.status.success(), "{exported:?}");
    assert_eq!(files(&out), files(&catalog_dir()));
    let again = fbc.fails(&["export", &remote, out.to_str().unwrap(), "--plain-http"]);
    assert!(again.contains("already exists"), "{again}");
    // An image is not edited in place.
    let e = fbc.fails(&[
        "edit",
        &remote,
        "set-default-channel",
        "--package",
        "foo",
        "--channel",
        "beta",
    ]);
    assert!(
        e.contains(&format!(
            "`fbc-edit export {remote} DIR` writes its catalog out to edit"
        )),
        "{e}"
    );
}

#[test]
fn a_multi_arch_index_opens_as_one_platform() {
    let work = tempfile::tempdir().unwrap();
    let mut l = Layout::new(&work.path().join("layout"));
    let layers = catalog_layers();
    let amd = l.image(&[(CONFIGS, "/configs")], &layers, "amd64");
    let arm = l.image(&[(CONFIGS, "/configs/")], &layers, "arm64");
    let s390x = l.image(&[(CONFIGS, "configs")], &layers, "s390x");
    let index = l.index(&[s390x, arm, amd]);
    l.tag(&index, "multi:v1");
    let registry = Registry::start(None);
    push(&l, "multi:v1", &registry, None);
    let fbc = Fbc::new();
    assert_eq!(
        fbc.ok(&[
            "list",
            &format!("{}/multi:v1", registry.addr),
            "--plain-http"
        ]),
        expected_list()
    );
    assert_eq!(
        fbc.ok(&["list", &format!("oci:{}:multi:v1", l.dir.display())]),
        expected_list()
    );
}

#[test]
fn a_second_open_is_served_from_the_cache_with_the_registry_stopped() {
    let work = tempfile::tempdir().unwrap();
    let l = layout(&work.path().join("layout"));
    let mut registry = Registry::start(None);
    push(&l, "cat:v1", &registry, None);
    let fbc = Fbc::new();
    let remote = format!("{}/cat:v1", registry.addr);
    let first = fbc.run(&["list", &remote, "--plain-http"]);
    assert!(first.status.success(), "{first:?}");
    // A registry that answers in the wrong protocol is not an offline one: no cached copy stands in.
    let e = fbc.fails(&["list", &remote]);
    assert!(
        e.contains(&format!(
            "no secure connection to the registry at {}",
            registry.addr
        )) && e.contains("add --plain-http"),
        "{e}"
    );
    registry.stop();
    let second = fbc.run(&["list", &remote, "--plain-http"]);
    assert!(second.status.success(), "{second:?}");
    assert_eq!(second.stdout, first.stdout);
    let note = String::from_utf8_lossy(&second.stderr);
    assert!(
        note.contains("the registry cannot be reached") && note.contains("cached as sha256:"),
        "{note}"
    );
    // Asking for a fresh copy needs the registry, and says it cannot be reached.
    let e = fbc.fails(&["list", &remote, "--plain-http", "--refresh"]);
    assert!(
        e.contains(&format!("cannot reach the registry at {}", registry.addr))
            && e.contains("connection refused"),
        "{e}"
    );
    // The cache is keyed by digest: the same image by digest opens with no network at all.
    let digest = note.split("cached as ").nth(1).unwrap().trim().to_string();
    let by_digest = format!("{}/cat@{digest}", registry.addr);
    let third = fbc.run(&["list", &by_digest, "--plain-http"]);
    assert!(third.status.success(), "{third:?}");
    assert_eq!(third.stdout, first.stdout);
    assert!(third.stderr.is_empty(), "{third:?}");
}

#[test]
fn a_registry_with_basic_auth_takes_credentials_from_the_auth_files() {
    let work = tempfile::tempdir().unwrap();
    let l = layout(&work.path().join("layout"));
    let registry = Registry::start(Some(&testdata("images/htpasswd")));
    push(&l, "cat:v1", &registry, Some("fbc:s3cret"));
    let remote = format!("{}/cat:v1", registry.addr);
    let mut fbc = Fbc::new();
    // No credentials anywhere: the message names every file looked at.
    let e = fbc.fails(&["list", &remote, "--plain-http"]);
    let auth_file = fbc.home.path().join("auth.json");
    assert!(
        e.contains(&format!("{remote}: unauthorized: {}", registry.addr))
            && e.contains(&format!("{} (absent)", auth_file.display()))
            && e.contains(".docker/config.json (absent)"),
        "{e}"
    );
    // Wrong credentials: the message names the file they came from.
    let auth = |user: &str, password: &str| {
        use base64::Engine as _;
        let token = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
        format!(
            r#"{{"auths": {{"{}": {{"auth": "{token}"}}}}}}"#,
            registry.addr
        )
    };
    std::fs::write(&auth_file, auth("fbc", "wrong")).unwrap();
    let e = fbc.fails(&["list", &remote, "--plain-http"]);
    assert!(
        e.contains("unauthorized")
            && e.contains(&format!(
                "refused the credentials for it in {}",
                auth_file.display()
            )),
        "{e}"
    );
    // The right ones, from $REGISTRY_AUTH_FILE, then from ~/.docker/config.json.
    std::fs::write(&auth_file, auth("fbc", "s3cret")).unwrap();
    assert_eq!(fbc.ok(&["list", &remote, "--plain-http"]), expected_list());
    let docker = fbc.home.path().join(".docker");
    std::fs::create_dir_all(&docker).unwrap();
    std::fs::write(docker.join("config.json"), auth("fbc", "s3cret")).unwrap();
    fbc.auth_file = Some(work.path().join("none.json"));
    assert_eq!(
        fbc.ok(&["list", &remote, "--plain-http", "--refresh"]),
        expected_list()
    );
}

/// An `auths` file with `user:password` for `registry`.
fn auth_json(registry: &str, user: &str, password: &str) -> String {
    use base64::Engine as _;
    let token = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
    format!(r#"{{"auths": {{"{registry}": {{"auth": "{token}"}}}}}}"#)
}

#[test]
fn a_registry_with_token_auth_is_pulled_with_a_bearer_token() {
    let work = tempfile::tempdir().unwrap();
    let l = layout(&work.path().join("layout"));
    let tokens = token::TokenServer::start("fbc", "s3cret");
    let registry =
        Registry::start_token(&tokens.realm, token::SERVICE, token::ISSUER, &tokens.cert);
    push(&l, "cat:v1", &registry, Some("fbc:s3cret"));
    let remote = format!("{}/cat:v1", registry.addr);
    let fbc = Fbc::new();
    // An anonymous token grants nothing.
    let e = fbc.fails(&["list", &remote, "--plain-http"]);
    assert!(
        e.contains(&format!(
            "{remote}: unauthorized: {} requires credentials",
            registry.addr
        )),
        "{e}"
    );
    let auth_file = fbc.home.path().join("auth.json");
    std::fs::write(&auth_file, auth_json(&registry.addr, "fbc", "wrong")).unwrap();
    let e = fbc.fails(&["list", &remote, "--plain-http"]);
    assert!(
        e.contains(&format!(
            "refused the credentials for it in {}",
            auth_file.display()
        )),
        "{e}"
    );
    std::fs::write(&auth_file, auth_json(&registry.addr, "fbc", "s3cret")).unwrap();
    assert_eq!(fbc.ok(&["list", &remote, "--plain-http"]), expected_list());
}

#[test]
fn an_unknown_tag_is_a_manifest_unknown_error() {
    let work = tempfile::tempdir().unwrap();
    let l = layout(&work.path().join("layout"));
    let registry = Registry::start(None);
    push(&l, "cat:v1", &registry, None);
    let fbc = Fbc::new();
    let remote = format!("{}/cat:v2", registry.addr);
    let e = fbc.fails(&["list", &remote, "--plain-http"]);
    assert!(
        e.contains(&format!(
            "{remote}: manifest unknown: the registry has no image cat:v2"
        )),
        "{e}"
    );
    let e = fbc.fails(&["list", &format!("oci:{}:v9", l.dir.display())]);
    assert!(
        e.contains("manifest unknown") && e.contains("tags: cat:v1, bundle:v1, plain:v1"),
        "{e}"
    );
}

#[test]
fn an_image_without_a_catalog_says_which_label_is_missing() {
    let work = tempfile::tempdir().unwrap();
    let l = layout(&work.path().join("layout"));
    let registry = Registry::start(None);
    push(&l, "plain:v1", &registry, None);
    push(&l, "bundle:v1", &registry, None);
    let fbc = Fbc::new();
    let e = fbc.fails(&[
        "list",
        &format!("{}/plain:v1", registry.addr),
        "--plain-http",
    ]);
    assert!(
        e.contains(&format!(
            "not a catalog image: its config has no label {CONFIGS} (labels: org.opencontainers.image.title)"
        )),
        "{e}"
    );
    let bundle = format!("{}/bundle:v1", registry.addr);
    let e = fbc.fails(&["validate", &bundle, "--plain-http"]);
    assert!(
        e.contains("not a catalog image: it is a bundle image")
            && e.contains(&format!("fbc-edit render {bundle}")),
        "{e}"
    );
}

#[test]
fn an_unknown_host_is_named() {
    // In a network namespace of its own, name lookups fail at once and nothing leaves the machine.
    let fbc = Fbc::new();
    let mut c = std::process::Command::new("unshare");
    c.arg("--net")
        .arg(assert_cmd::cargo::cargo_bin("fbc-edit"))
        .args(["list", "registry.example.invalid/cat:v1"])
        .env("FBC_EDIT_CACHE_DIR", fbc.cache.path())
        .env("HOME", fbc.home.path());
    let out = c.output().expect("unshare (util-linux) runs");
    let e = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{e}");
    assert!(
        e.contains("registry.example.invalid/cat:v1: unknown host \"registry.example.invalid\""),
        "{e}"
    );
}

#[test]
fn a_full_disk_is_reported_and_leaves_no_partial_image() {
    let work = tempfile::tempdir().unwrap();
    let mut l = Layout::new(&work.path().join("layout"));
    // 2 MB of catalog (compressed to little) for a cache with 256 KiB of room.
    let big = format!(
        "{{\"schema\": \"olm.package\", \"name\": \"big\", \"description\": \"{}\"}}\n",
        "x".repeat(2_000_000)
    );
    let image = l.image(
        &[(CONFIGS, "/configs")],
        &[tar(&[
            Item::Dir("configs".into()),
            Item::File("configs/big.json".into(), big.into_bytes()),
        ])],
        "amd64",
    );
    l.tag(&image, "big:v1");
    let fbc = Fbc::new();
    let cache = fbc.cache.path().display().to_string();
    // The cache is a 256 KiB tmpfs in a mount namespace of the command's own; after the failure,
    // the files left in it are counted.
    let script = format!(
        "mount -t tmpfs -o size=256k tmpfs {cache} || exit 99; \"$0\" list oci:{}:big:v1; rc=$?; echo left=$(find {cache} -type f | wc -l); exit $rc",
        l.dir.display()
    );
    let out = std::process::Command::new("unshare")
        .args(["--mount", "sh", "-c", &script])
        .arg(assert_cmd::cargo::cargo_bin("fbc-edit"))
        .env("FBC_EDIT_CACHE_DIR", fbc.cache.path())
        .env("HOME", fbc.home.path())
        .output()
        .expect("unshare (util-linux) runs");
    let e = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{e}");
    assert!(
        e.contains(&format!(
            "no space left on the device while writing into the cache {cache}"
        )),
        "{e}"
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "left=0");
}

#[test]
fn a_template_bundle_only_in_the_registry_renders_like_its_bundle_directory() {
    let work = tempfile::tempdir().unwrap();
    let l = layout(&work.path().join("layout"));
    let registry = Registry::start(None);
    push(&l, "bundle:v1", &registry, None);
    let image = format!("{}/bundle:v1", registry.addr);
    let template = work.path().join("template.yaml");
    std::fs::write(
        &template,
        format!(
            "schema: olm.template.basic\nentries:\n- schema: olm.package\n  name: foo\n  defaultChannel: beta\n- schema: olm.channel\n  package: foo\n  name: beta\n  entries:\n  - name: foo.v0.2.0\n- schema: olm.bundle\n  image: {image}\n"
        ),
    )
    .unwrap();
    let t = template.to_str().unwrap();
    let fbc = Fbc::new();
    let bundle_dir = testdata("bundles/foo-v0.2.0");
    let expected = fbc.ok(&[
        "template",
        "render",
        t,
        "--bundle-dir",
        &format!("{image}={}", bundle_dir.display()),
    ]);
    assert!(
        expected.contains(&format!("\"image\": \"{image}\"")),
        "{expected}"
    );
    assert_eq!(
        fbc.ok(&["template", "render", t, "--pull", "--plain-http"]),
        expected
    );
    // An image may stand in for another one, like a bundle directory does.
    assert_eq!(
        fbc.ok(&[
            "template",
            "render",
            t,
            "--bundle-dir",
            &format!("{image}=oci:{}:bundle:v1", l.dir.display()),
        ]),
        expected
    );
    // Without --pull, nothing is fetched.
    let out = fbc.run(&[
        "template",
        "render",
        t,
        "--catalog",
        catalog_dir().to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    // `render IMAGE` gives the bundle as `render DIR --image IMAGE` does.
    assert_eq!(
        fbc.ok(&["render", &image, "--plain-http"]),
        fbc.ok(&["render", bundle_dir.to_str().unwrap(), "--image", &image])
    );
}

#[test]
fn a_self_signed_registry_needs_insecure() {
    let work = tempfile::tempdir().unwrap();
    let l = layout(&work.path().join("layout"));
    let registry = Registry::start_tls();
    push(&l, "cat:v1", &registry, None);
    let fbc = Fbc::new();
    let remote = format!("{}/cat:v1", registry.addr);
    let e = fbc.fails(&["list", &remote]);
    assert!(
        e.contains(&format!(
            "{remote}: no secure connection to the registry at {}",
            registry.addr
        )) && e.contains("--insecure"),
        "{e}"
    );
    assert_eq!(fbc.ok(&["list", &remote, "--insecure"]), expected_list());
}
