use super::*;

#[test]
fn only_the_pipelines_tags_name_a_directory() {
    for (image, named) in [
        (
            "quay.io/community-operator-pipeline-prod/konflux:0.2.2-rc.10",
            Some(("konflux", "0.2.2-rc.10")),
        ),
        (
            "quay.io/community-operator-pipeline-prod/kube-green@sha256:5454491ad316d474619cc0574d8238cac793f8677ae265501beb3c87c9f2b0a6",
            None,
        ),
        (
            "quay.io/community-operator-pipeline-prod/a:1.0@sha256:00",
            None,
        ),
        ("quay.io/community-operator-pipeline-stage/a:1.0", None),
        ("quay.io/openshift-community-operators/a:1.0", None),
        ("registry.connect.redhat.com/ns/repo@sha256:00", None),
        ("quay.io/community-operator-pipeline-prod/a/b:1.0", None),
        ("quay.io/community-operator-pipeline-prod/..:1.0", None),
        ("quay.io/community-operator-pipeline-prod/a:..", None),
        ("quay.io/community-operator-pipeline-prod/a", None),
    ] {
        assert_eq!(RepositoryBundles::names(image), named, "{image}");
    }
}

fn repo(organization: &str) -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    std::fs::write(
        root.path().join("config.yaml"),
        format!("organization: {organization}\n"),
    )
    .unwrap();
    std::fs::create_dir_all(root.path().join("operators/op/catalog-templates")).unwrap();
    root
}

fn bundle(dir: &Path, package: &str, version: &str) {
    std::fs::create_dir_all(dir.join("manifests")).unwrap();
    std::fs::create_dir_all(dir.join("metadata")).unwrap();
    std::fs::write(
            dir.join("manifests/csv.yaml"),
            format!(
                "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: {package}.v{version}\nspec:\n  version: {version}\n"
            ),
        )
        .unwrap();
    std::fs::write(
        dir.join("metadata/annotations.yaml"),
        format!("annotations:\n  {PACKAGE_KEY}: {package}\n  {MANIFESTS_KEY}: manifests/\n"),
    )
    .unwrap();
}

#[test]
fn the_organization_decides_whether_directories_are_images() {
    let root = repo("certified-operators");
    let t = root.path().join("operators/op/catalog-templates/t.yaml");
    assert!(RepositoryBundles::for_template(&t).unwrap().is_none());
    let root = repo("community-operators");
    let t = root.path().join("operators/op/catalog-templates/t.yaml");
    assert!(RepositoryBundles::for_template(&t).unwrap().is_some());
    // Not in a repository layout.
    assert!(
        RepositoryBundles::for_template(&root.path().join("t.yaml"))
            .unwrap()
            .is_none()
    );
    std::fs::write(root.path().join("config.yaml"), "organization: [\n").unwrap();
    let e = RepositoryBundles::for_template(&t)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("config.yaml"), "{e}");
}

#[test]
fn a_directory_renders_as_its_image() {
    let root = repo("community-operators");
    bundle(&root.path().join("operators/op/1.0.0"), "op", "1.0.0");
    let s = RepositoryBundles::open(root.path()).unwrap().unwrap();
    let image = "quay.io/community-operator-pipeline-prod/op:1.0.0";
    let b = s.bundle_for_image(image).unwrap().unwrap();
    assert_eq!(b["image"], image);
    assert_eq!(b["name"], "op.v1.0.0");
    // The image is among the related images, as opm lists a bundle image's own reference.
    assert_eq!(
        b["relatedImages"],
        serde_json::json!([{"name": "", "image": image}])
    );
    assert!(
        b["properties"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["type"] == "olm.bundle.object")
    );
    // No directory, no answer: the catalogs are asked.
    assert!(
        s.bundle_for_image("quay.io/community-operator-pipeline-prod/op:2.0.0")
            .is_none()
    );
}

#[test]
fn a_directory_unlike_its_image_name_is_refused() {
    let root = repo("community-operators");
    bundle(&root.path().join("operators/op/1.0.0"), "op", "1.0.1");
    bundle(&root.path().join("operators/op/2.0.0"), "other", "2.0.0");
    let s = RepositoryBundles::open(root.path()).unwrap().unwrap();
    let e = s
        .bundle_for_image("quay.io/community-operator-pipeline-prod/op:1.0.0")
        .unwrap()
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("names version 1.0.0")
            && e.contains("holds version \"1.0.1\"")
            && e.contains("no committed catalog holds the image"),
        "{e}"
    );
    // Released as the version the directory holds: the directory is the image.
    let mut s = RepositoryBundles::open(root.path()).unwrap().unwrap();
    s.released("quay.io/community-operator-pipeline-prod/op:1.0.0", "1.0.1");
    let b = s
        .bundle_for_image("quay.io/community-operator-pipeline-prod/op:1.0.0")
        .unwrap()
        .unwrap();
    assert_eq!(b["name"], "op.v1.0.1");
    // Released as another version: refused, naming all three.
    let mut s = RepositoryBundles::open(root.path()).unwrap().unwrap();
    s.released("quay.io/community-operator-pipeline-prod/op:1.0.0", "1.0.0");
    let e = s
        .bundle_for_image("quay.io/community-operator-pipeline-prod/op:1.0.0")
        .unwrap()
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("the committed catalogs hold the image as version \"1.0.0\""),
        "{e}"
    );
    let e = s
        .bundle_for_image("quay.io/community-operator-pipeline-prod/op:2.0.0")
        .unwrap()
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("names operator op") && e.contains("declares package \"other\""),
        "{e}"
    );
}

#[test]
fn an_operator_packaged_under_another_name_is_accepted() {
    let root = repo("community-operators");
    bundle(
        &root.path().join("operators/op/1.0.0"),
        "op-operator",
        "1.0.0",
    );
    bundle(
        &root.path().join("operators/op/1.1.0"),
        "op-operator",
        "1.1.0",
    );
    let s = RepositoryBundles::open(root.path()).unwrap().unwrap();
    let b = s
        .bundle_for_image("quay.io/community-operator-pipeline-prod/op:1.1.0")
        .unwrap()
        .unwrap();
    assert_eq!(b["package"], "op-operator");
}

#[cfg(unix)]
#[test]
fn what_cannot_be_read_as_from_the_image_is_refused() {
    let root = repo("community-operators");
    let outside = tempfile::tempdir().unwrap();
    bundle(outside.path(), "op", "1.0.0");
    // A version directory that is a link out of the repository.
    std::os::unix::fs::symlink(outside.path(), root.path().join("operators/op/1.0.0")).unwrap();
    // A manifest that is a link out of the bundle, and a FIFO.
    let d = root.path().join("operators/op/2.0.0");
    bundle(&d, "op", "2.0.0");
    std::os::unix::fs::symlink(
        outside.path().join("manifests/csv.yaml"),
        d.join("manifests/linked.yaml"),
    )
    .unwrap();
    let fifo = d.join("manifests/pipe.yaml");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    let s = RepositoryBundles::open(root.path()).unwrap().unwrap();
    let e = s
        .bundle_for_image("quay.io/community-operator-pipeline-prod/op:1.0.0")
        .unwrap()
        .unwrap_err()
        .to_string();
    assert!(e.contains("leads out of the repository"), "{e}");
    let e = s
        .bundle_for_image("quay.io/community-operator-pipeline-prod/op:2.0.0")
        .unwrap()
        .unwrap_err()
        .to_string();
    assert!(e.contains("manifests/linked.yaml"), "{e}");
    if made.is_ok_and(|s| s.success()) {
        assert!(e.contains("manifests/pipe.yaml"), "{e}");
    }
}

const DIGEST: &str = "quay.io/community-operator-pipeline-prod/op@sha256:5454491ad316d474619cc0574d8238cac793f8677ae265501beb3c87c9f2b0a6";

#[test]
fn only_digests_of_the_pipelines_repositories_name_an_operator() {
    assert_eq!(RepositoryBundles::digest_names(DIGEST), Some("op"));
    let old = DIGEST.replace(COMMUNITY_IMAGES, "quay.io/openshift-community-operators/");
    assert_eq!(RepositoryBundles::digest_names(&old), Some("op"));
    for image in [
        "quay.io/community-operator-pipeline-prod/op:1.0.0",
        "quay.io/community-operator-pipeline-prod/op@sha256:00",
        "quay.io/community-operator-pipeline-prod/../op@sha256:5454491ad316d474619cc0574d8238cac793f8677ae265501beb3c87c9f2b0a6",
        "quay.io/community-operator-pipeline-prod/op@sha256:5454491AD316D474619CC0574D8238CAC793F8677AE265501BEB3C87C9F2B0A6",
        "registry.connect.redhat.com/ns/op@sha256:5454491ad316d474619cc0574d8238cac793f8677ae265501beb3c87c9f2b0a6",
    ] {
        assert_eq!(RepositoryBundles::digest_names(image), None, "{image}");
    }
}

/// The bundle `dir` renders as for `image`, migrated when `migrate`.
fn committed_form(dir: &Path, image: &str, migrate: bool) -> Value {
    let mut v = render_plain(image, dir).unwrap().value;
    if migrate {
        crate::bundle::migrate_bundle_objects(&mut v).unwrap();
    }
    v
}

/// A bundle committed by an opm built with Go 1.22 lists related images of one image in another
/// order than one built with Go 1.24 and later: either proves the digest, a third does not.
#[test]
fn a_digest_is_proven_whichever_go_sorted_the_committed_related_images() {
    let root = repo("community-operators");
    let dir = root.path().join("operators/op/1.0.0");
    let from = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("testdata/gosort/related-images/bundle");
    for sub in ["manifests", "metadata"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
        for e in std::fs::read_dir(from.join(sub)).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), dir.join(sub).join(e.file_name())).unwrap();
        }
    }
    let open = || RepositoryBundles::open(root.path()).unwrap().unwrap();
    let as_built = render_plain(DIGEST, &dir).unwrap().value;
    let sorted = |go| {
        let mut v = as_built.clone();
        crate::bundle::sort_related_images(&mut v, go);
        v
    };
    let (old, new) = (sorted(GoRelease::Go1_19To1_23), sorted(GoRelease::Go1_24On));
    assert_ne!(old["relatedImages"], new["relatedImages"]);
    for held in [old, new] {
        let mut s = open();
        s.committed(DIGEST, "catalogs/v4.17/op", held);
        let b = s.bundle_for_image(DIGEST).unwrap().unwrap();
        assert_eq!(b["name"], "related.v1.0.0");
    }
    let mut reversed = sorted(GoRelease::Go1_24On);
    reversed["relatedImages"].as_array_mut().unwrap().reverse();
    let mut s = open();
    s.committed(DIGEST, "catalogs/v4.17/op", reversed);
    assert!(s.bundle_for_image(DIGEST).is_none());
    assert!(s.unresolved(DIGEST).unwrap().contains("relatedImages"));
}

#[test]
fn a_digest_is_its_directory_only_when_the_committed_bundle_agrees() {
    let root = repo("community-operators");
    bundle(&root.path().join("operators/op/1.0.0"), "op", "1.0.0");
    // The directory is named after its tag, not the version its CSV holds.
    bundle(&root.path().join("operators/op/1.1"), "op", "1.1.0");
    let open = || RepositoryBundles::open(root.path()).unwrap().unwrap();
    // No committed catalog holds it: not known here.
    assert!(open().bundle_for_image(DIGEST).is_none());
    assert!(open().unproven(DIGEST).is_none());
    for migrate in [false, true] {
        let held = committed_form(&root.path().join("operators/op/1.0.0"), DIGEST, migrate);
        let mut s = open();
        s.committed(DIGEST, "catalogs/v4.17/op", held);
        let b = s.bundle_for_image(DIGEST).unwrap().unwrap();
        assert_eq!(b["image"], DIGEST);
        assert_eq!(b["name"], "op.v1.0.0");
        // Answered as opm renders the image: with its manifests.
        assert!(has_property(&b, "olm.bundle.object"), "{b}");
    }
    let held = committed_form(&root.path().join("operators/op/1.1"), DIGEST, true);
    let mut s = open();
    s.committed(DIGEST, "catalogs/v4.17/op", held.clone());
    assert_eq!(
        s.bundle_for_image(DIGEST).unwrap().unwrap()["name"],
        "op.v1.1.0"
    );
    // A committed bundle the directory does not render as: not proven, and why is said.
    let mut other = held;
    other["properties"][0]["value"]["version"] = "1.0.0".into();
    let mut s = open();
    s.committed(DIGEST, "catalogs/v4.17/op", other.clone());
    assert!(s.bundle_for_image(DIGEST).is_none());
    let why = s.unresolved(DIGEST).unwrap();
    assert!(
            why.contains("operators/op/1.0.0 renders, migrated to olm.csv.metadata, unlike the bundle catalog catalogs/v4.17/op holds")
                && why.contains("at /name (\"op.v1.0.0\" against \"op.v1.1.0\")"),
            "{why}"
        );
    // Two committed versions for one image: not proven.
    let mut s = open();
    s.committed(DIGEST, "catalogs/v4.17/op", other);
    s.committed(
        DIGEST,
        "catalogs/v4.16/op",
        committed_form(&root.path().join("operators/op/1.1"), DIGEST, false),
    );
    assert!(s.bundle_for_image(DIGEST).is_none());
    assert!(
        s.unproven(DIGEST)
            .unwrap()
            .contains("versions 1.0.0, 1.1.0"),
        "{:?}",
        s.unproven(DIGEST)
    );
}

#[test]
fn a_version_no_directory_holds_proves_nothing() {
    let root = repo("community-operators");
    bundle(&root.path().join("operators/op/1.0.0"), "op", "1.0.0");
    let mut held = committed_form(&root.path().join("operators/op/1.0.0"), DIGEST, true);
    held["properties"][0]["value"]["version"] = "2.0.0".into();
    assert_eq!(package_version(&held), Some("2.0.0"));
    let mut s = RepositoryBundles::open(root.path()).unwrap().unwrap();
    s.committed(DIGEST, "catalogs/v4.17/op", held);
    assert!(s.bundle_for_image(DIGEST).is_none());
    assert!(
        s.unproven(DIGEST)
            .unwrap()
            .contains("no directory of operators/op/ holds that version"),
        "{:?}",
        s.unproven(DIGEST)
    );
}

/// opendatahub-operator 1.4.1 cannot be rendered (a CRD its CSV owns is not in it), yet its
/// image was: the directory proves nothing, and the catalogs are asked as without it.
#[test]
fn a_directory_that_cannot_be_rendered_proves_nothing() {
    let root = repo("community-operators");
    let dir = root.path().join("operators/op/1.0.0");
    bundle(&dir, "op", "1.0.0");
    let held = committed_form(&dir, DIGEST, true);
    let annotations = dir.join("metadata/annotations.yaml");
    let text = std::fs::read_to_string(&annotations).unwrap();
    std::fs::write(&annotations, text.replace("manifests/", "other/")).unwrap();
    let mut s = RepositoryBundles::open(root.path()).unwrap().unwrap();
    s.committed(DIGEST, "catalogs/v4.17/op", held);
    assert!(s.bundle_for_image(DIGEST).is_none());
    let why = s.unproven(DIGEST).unwrap();
    assert!(why.contains("is \"other/\""), "{why}");
}

#[test]
fn sources_sharing_a_cache_render_a_directory_once() {
    let root = repo("community-operators");
    let dir = root.path().join("operators/op/1.0.0");
    bundle(&dir, "op", "1.0.0");
    let image = "quay.io/community-operator-pipeline-prod/op:1.0.0";
    let cache = RenderCache::default();
    let first = RepositoryBundles::open(root.path())
        .unwrap()
        .unwrap()
        .with_cache(cache.clone());
    assert_eq!(
        first.bundle_for_image(image).unwrap().unwrap()["name"],
        "op.v1.0.0"
    );
    // The directory is gone, yet a source sharing the cache answers as before; one that does
    // not finds nothing.
    std::fs::remove_dir_all(dir.join("manifests")).unwrap();
    let second = RepositoryBundles::open(root.path())
        .unwrap()
        .unwrap()
        .with_cache(cache);
    assert_eq!(
        second.bundle_for_image(image).unwrap().unwrap()["name"],
        "op.v1.0.0"
    );
    let alone = RepositoryBundles::open(root.path()).unwrap().unwrap();
    assert!(alone.bundle_for_image(image).unwrap().is_err());
}

/// Which directory is asked about first does not change the answers: when an operator's
/// directories declare different packages, none of them is taken for its image.
#[test]
fn directories_declaring_different_packages_are_refused_whichever_is_asked_first() {
    let root = repo("community-operators");
    bundle(
        &root.path().join("operators/op/1.0.0"),
        "op-operator",
        "1.0.0",
    );
    bundle(&root.path().join("operators/op/2.0.0"), "other", "2.0.0");
    let one = "quay.io/community-operator-pipeline-prod/op:1.0.0";
    let two = "quay.io/community-operator-pipeline-prod/op:2.0.0";
    for order in [[one, two], [two, one]] {
        let s = RepositoryBundles::open(root.path()).unwrap().unwrap();
        for image in order {
            let e = s.bundle_for_image(image).unwrap().unwrap_err().to_string();
            assert!(
                e.contains("where the operator's other bundles declare"),
                "{order:?}, {image}: {e}"
            );
        }
    }
}

#[test]
fn warmed_directories_and_proofs_are_answered_without_reading_them_again() {
    let root = repo("community-operators");
    let dir = root.path().join("operators/op/1.0.0");
    bundle(&dir, "op", "1.0.0");
    let tag = "quay.io/community-operator-pipeline-prod/op:1.0.0";
    let mut s = RepositoryBundles::open(root.path()).unwrap().unwrap();
    s.committed(
        DIGEST,
        "catalogs/v4.17/op",
        committed_form(&dir, DIGEST, true),
    );
    s.warm(&[
        tag,
        DIGEST,
        tag,
        "quay.io/community-operator-pipeline-prod/op:9.0.0",
    ]);
    // The directory is gone: what the warm-up rendered and proved is answered as it was.
    std::fs::remove_dir_all(dir.join("manifests")).unwrap();
    assert_eq!(
        s.bundle_for_image(tag).unwrap().unwrap()["name"],
        "op.v1.0.0"
    );
    let b = s.bundle_for_image(DIGEST).unwrap().unwrap();
    assert_eq!(
        (b["name"].as_str(), b["image"].as_str()),
        (Some("op.v1.0.0"), Some(DIGEST))
    );
    // A source not warmed reads the directory as it is now.
    let mut fresh = RepositoryBundles::open(root.path()).unwrap().unwrap();
    fresh.committed(DIGEST, "catalogs/v4.17/op", committed_form_of_name(DIGEST));
    assert!(fresh.bundle_for_image(tag).unwrap().is_err());
    assert!(fresh.bundle_for_image(DIGEST).is_none());
}

/// A committed bundle holding only a name and a version, as a catalog from 4.17 on would.
fn committed_form_of_name(image: &str) -> Value {
    serde_json::json!({
        "schema": "olm.bundle", "name": "op.v1.0.0", "package": "op", "image": image,
        "properties": [
            {"type": "olm.package", "value": {"packageName": "op", "version": "1.0.0"}},
            {"type": "olm.csv.metadata", "value": {}},
        ],
    })
}

#[test]
fn an_operator_directory_over_the_bound_is_reported_not_read_further() {
    let root = repo("community-operators");
    bundle(&root.path().join("operators/op/1.0.0"), "op", "1.0.0");
    bundle(&root.path().join("operators/op/1.1.0"), "other", "1.1.0");
    let mut held = committed_form(&root.path().join("operators/op/1.0.0"), DIGEST, true);
    held["properties"][0]["value"]["version"] = "2.0.0".into();
    // op/ holds catalog-templates/, 1.0.0/ and 1.1.0/.
    let mut s = RepositoryBundles::open(root.path()).unwrap().unwrap();
    s.max_siblings = 2;
    s.committed(DIGEST, "catalogs/v4.17/op", held);
    assert!(s.bundle_for_image(DIGEST).is_none());
    let why = s.unproven(DIGEST).unwrap();
    assert!(
        why.ends_with("operators/op: more than 2 entries; not read further"),
        "{why}"
    );
    // The packages the other directories declare are not guessed from a part of them.
    let e = s
        .bundle_for_image("quay.io/community-operator-pipeline-prod/op:1.1.0")
        .unwrap()
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("operator directory ")
            && e.ends_with("op: more than 2 entries; not read further"),
        "{e}"
    );
    s.max_siblings = 3;
    let e = s
        .bundle_for_image("quay.io/community-operator-pipeline-prod/op:1.1.0")
        .unwrap()
        .unwrap_err()
        .to_string();
    assert!(e.contains("declares package \"other\""), "{e}");
}
