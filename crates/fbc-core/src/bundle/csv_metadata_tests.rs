use super::*;
use serde_json::json;

#[test]
fn keeps_go_fields_in_go_order() {
    let csv = json!({
        "metadata": {"name": "x", "annotations": {"b": "2", "a": "1"}},
        "spec": {
            "Description": "hello",
            "keywords": [],
            "installModes": [{"supported": true, "type": "AllNamespaces", "extra": 1}],
            "customresourcedefinitions": {"owned": [{"name": "foos.example.com", "kind": "Foo",
                "version": "v1", "specDescriptors": [{"path": "size", "value": 3}]}]},
            "links": [{"url": "https://x"}],
        }
    });
    let m = csv_metadata(&csv).unwrap();
    assert_eq!(
        serde_json::to_string(&m).unwrap(),
        r#"{"annotations":{"a":"1","b":"2"},"apiServiceDefinitions":{},"crdDescriptions":{"owned":[{"name":"foos.example.com","version":"v1","kind":"Foo","specDescriptors":[{"path":"size","value":3}]}]},"description":"hello","installModes":[{"type":"AllNamespaces","supported":true}],"links":[{"url":"https://x"}],"provider":{}}"#
    );
}

#[test]
fn a_null_descriptor_value_is_kept_an_absent_one_omitted() {
    let csv = json!({"spec": {"customresourcedefinitions": {"owned": [{"name": "a.b", "kind": "A",
        "version": "v1", "specDescriptors": [{"path": "x", "value": null}, {"path": "y"}]}]}}});
    let m = csv_metadata(&csv).unwrap();
    assert_eq!(
        m["crdDescriptions"]["owned"][0]["specDescriptors"].to_string(),
        r#"[{"path":"x","value":null},{"path":"y"}]"#
    );
}

#[test]
fn wrong_types_are_errors() {
    let csv = json!({"spec": {"keywords": "a"}});
    assert!(
        csv_metadata(&csv)
            .unwrap_err()
            .to_string()
            .contains("keywords")
    );
}

#[test]
fn a_wrong_type_deep_down_is_named_by_its_path() {
    let csv = json!({"spec": {"maintainers": [{"name": "a", "email": 5}]}});
    let e = csv_metadata(&csv).unwrap_err();
    assert_eq!(e.found, Mismatch::NotAString(json!(5)));
    assert_eq!(
        e.to_string(),
        "maintainers: [0]: email: expected a string, found 5"
    );
    let csv = json!({"metadata": {"labels": {"tier": true}}});
    assert_eq!(
        csv_metadata(&csv).unwrap_err().to_string(),
        "labels: tier: expected a string, found true"
    );
}

fn object(v: &Value) -> Value {
    use base64::Engine as _;
    let data = base64::engine::general_purpose::STANDARD.encode(v.to_string());
    json!({"type": "olm.bundle.object", "value": {"data": data}})
}

#[test]
fn a_memo_migrates_as_decoding_each_time_does() {
    let csv = json!({"kind": "ClusterServiceVersion", "metadata": {"name": "a.v1"},
        "spec": {"displayName": "A", "keywords": ["x"]}});
    let crd = json!({"kind": "CustomResourceDefinition", "metadata": {"name": "as.b"}});
    let bad_csv = json!({"kind": "ClusterServiceVersion", "spec": {"keywords": "x"}});
    let not_base64 = json!({"type": "olm.bundle.object", "value": {"data": "%%"}});
    let bundle = |objects: Vec<Value>| {
        let mut props =
            vec![json!({"type": "olm.package", "value": {"packageName": "a", "version": "1"}})];
        props.extend(objects);
        json!({"schema": "olm.bundle", "name": "a.v1", "image": "r/a:1", "properties": props})
    };
    let cases = [
        bundle(vec![object(&crd), object(&csv)]),
        bundle(vec![object(&csv), not_base64.clone()]),
        bundle(vec![object(&crd), not_base64]),
        bundle(vec![object(&bad_csv)]),
        bundle(vec![object(&crd)]),
    ];
    let memo = MigrationMemo::default();
    // Twice over: the second time every object is known to the memo.
    for round in 0..2 {
        for case in &cases {
            let (mut plain, mut memoized) = (case.clone(), case.clone());
            let want = migrate_bundle_objects(&mut plain).map_err(|e| e.to_string());
            let got =
                migrate_bundle_objects_with(&mut memoized, Some(&memo)).map_err(|e| e.to_string());
            assert_eq!(got, want, "round {round}: {case}");
            assert_eq!(memoized, plain, "round {round}");
        }
    }
    let mut migrated = cases[0].clone();
    assert!(migrate_bundle_objects_with(&mut migrated, Some(&memo)).unwrap());
    assert_eq!(
        migrated["properties"][1]["value"]["displayName"], "A",
        "{migrated}"
    );
    assert!(
        migrate_bundle_objects(&mut cases[2].clone())
            .unwrap_err()
            .to_string()
            .contains("not base64")
    );
    // The CSV, the CRD and the CSV that cannot migrate: each remembered once.
    assert_eq!(memo.len(), 3);
}

proptest::proptest! {
    /// What the SIMD decoder takes, the scalar one takes too, as the same bytes: the
    /// migration accepts no more base64 than before.
    #[test]
    fn simd_decoding_takes_only_what_the_scalar_one_does(
        raw in proptest::collection::vec(proptest::num::u8::ANY, 0..64),
        noise in "[A-Za-z0-9+/=]{0,12}",
        cut in 0usize..4,
    ) {
        use base64::Engine as _;
        let good = base64::engine::general_purpose::STANDARD.encode(&raw);
        let mangled = format!("{}{noise}", &good[..good.len().saturating_sub(cut)]);
        for text in [good.as_str(), mangled.as_str()] {
            if let Ok(fast) = base64_simd::STANDARD.decode_to_vec(text) {
                let slow = base64::engine::general_purpose::STANDARD.decode(text);
                proptest::prop_assert_eq!(slow.ok(), Some(fast), "{}", text);
            }
        }
    }
}

#[test]
fn data_under_the_same_hash_is_not_taken_for_another() {
    let csv = |name: &str| {
        let v = json!({"kind": "ClusterServiceVersion", "metadata": {"name": name},
            "spec": {"displayName": name}});
        object(&v)["value"]["data"].as_str().unwrap().to_string()
    };
    let (a, b) = (csv("a.v1"), csv("b.v1"));
    let memo = MigrationMemo::default();
    let decoded_a = memo.decoded(&a).unwrap();
    // B's hash now leads to A's data, as a collision would.
    let key_b = xxhash_rust::xxh3::xxh3_64_with_seed(b.as_bytes(), memo.seed);
    memo.decoded
        .lock()
        .unwrap()
        .entry(key_b)
        .or_default()
        .push(Remembered {
            data: a.as_str().into(),
            decoded: decoded_a,
        });
    let got = memo.decoded(&b).unwrap();
    let Decoded::Csv(Ok(meta)) = &*got else {
        panic!("not a CSV: {got:?}");
    };
    assert_eq!(meta["displayName"], "b.v1");
}
