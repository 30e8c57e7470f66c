//! Every skipRange, bundle version and image pull spec in the real catalogs parses (they all pass
//! `opm validate`, which checks each of them).

use std::path::Path;

use fbc_core::catalog::image_ref::ImageRef;
use fbc_core::catalog::model::{Bundle, Channel};
use fbc_core::catalog::semver_range::{Range, Version};
use fbc_core::catalog::{load, schema};

#[test]
fn real_skip_ranges_and_versions_parse() {
    let real = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/real");
    let (mut ranges, mut versions, mut images) = (0, 0, 0);
    let mut dirs: Vec<_> = std::fs::read_dir(&real)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for dir in dirs {
        let c = load(&dir).unwrap();
        for (_, blob) in c.live_blobs() {
            match blob.schema() {
                schema::CHANNEL => {
                    for e in Channel::read(&blob.value).unwrap().entries {
                        if let Some(r) = e.skip_range {
                            Range::parse(r).unwrap_or_else(|err| panic!("{r:?}: {err}"));
                            ranges += 1;
                        }
                    }
                }
                schema::BUNDLE => {
                    let b = Bundle::read(&blob.value).unwrap();
                    if let Some(v) = b.version() {
                        Version::parse(v).unwrap_or_else(|err| panic!("{v:?}: {err}"));
                        versions += 1;
                    }
                    let specs =
                        std::iter::once(b.image).chain(b.related_images.iter().map(|r| r.image));
                    for spec in specs.filter(|s| !s.is_empty()) {
                        ImageRef::parse(spec).unwrap_or_else(|err| panic!("{spec:?}: {err}"));
                        images += 1;
                    }
                }
                _ => {}
            }
        }
    }
    assert!(
        ranges >= 273 && versions >= 472 && images >= 2274,
        "{ranges} ranges, {versions} versions, {images} images"
    );
}

#[test]
fn skip_range_with_spaces_after_operators_matches_like_opm() {
    // Written this way in the certified-operators index.
    let r = Range::parse(">= 1.18.0 < 1.28.0").unwrap();
    let v = |s| Version::parse(s).unwrap();
    assert!(r.matches(&v("1.18.0")) && r.matches(&v("1.27.9")));
    assert!(!r.matches(&v("1.28.0")) && !r.matches(&v("1.17.9")));
}
