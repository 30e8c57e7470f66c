use super::*;

/// A raw header block: name, type flag, size, link; checksum set.
pub(crate) fn header(name: &[u8], flag: u8, size: u64, link: &[u8]) -> [u8; BLOCK] {
    let mut h = [0u8; BLOCK];
    h[..name.len().min(100)].copy_from_slice(&name[..name.len().min(100)]);
    h[100..107].copy_from_slice(b"0000644");
    h[124..135].copy_from_slice(format!("{size:011o}").as_bytes());
    h[156] = flag;
    h[157..157 + link.len().min(100)].copy_from_slice(&link[..link.len().min(100)]);
    h[257..263].copy_from_slice(b"ustar\0");
    h[263..265].copy_from_slice(b"00");
    set_checksum(&mut h);
    h
}

pub(crate) fn set_checksum(h: &mut [u8; BLOCK]) {
    h[148..156].copy_from_slice(b"        ");
    let sum: u64 = h.iter().map(|b| u64::from(*b)).sum();
    h[148..155].copy_from_slice(format!("{sum:06o}\0").as_bytes());
}

/// An entry: its header, then its data padded to a block.
pub(crate) fn entry(name: &[u8], flag: u8, data: &[u8], link: &[u8]) -> Vec<u8> {
    let mut out = header(name, flag, data.len() as u64, link).to_vec();
    out.extend_from_slice(data);
    out.resize(out.len() + padding(data.len() as u64) as usize, 0);
    out
}

fn reader(bytes: &[u8], limit: u64) -> TarReader<Stream<&[u8]>> {
    TarReader::new(
        Stream(bytes),
        limit,
        Box::new(|what, size| format!("{what} of {size} bytes")),
    )
}

fn all(bytes: &[u8], limit: u64) -> io::Result<Vec<(String, EntryKind, String)>> {
    let mut r = reader(bytes, limit);
    let mut out = Vec::new();
    while let Some(e) = r.next_entry()? {
        let mut data = String::new();
        if e.kind == EntryKind::File {
            r.data().read_to_string(&mut data)?;
        }
        out.push((e.shown(), e.kind, data));
    }
    Ok(out)
}

#[test]
fn entries_of_a_tar_written_by_the_tar_crate_read_back() {
    let mut b = tar::Builder::new(Vec::new());
    let mut h = tar::Header::new_gnu();
    h.set_entry_type(tar::EntryType::Directory);
    h.set_size(0);
    b.append_data(&mut h, "configs/", &b""[..]).unwrap();
    let long = format!("configs/{}/catalog.yaml", "p".repeat(150));
    let mut h = tar::Header::new_gnu();
    h.set_size(5);
    b.append_data(&mut h, &long, &b"hello"[..]).unwrap();
    let mut h = tar::Header::new_ustar();
    h.set_size(2);
    b.append_data(&mut h, "a/b", &b"ok"[..]).unwrap();
    let bytes = b.into_inner().unwrap();
    let got = all(&bytes, 1 << 20).unwrap();
    assert_eq!(
        got,
        [
            ("configs/".into(), EntryKind::Dir, String::new()),
            (long, EntryKind::File, "hello".into()),
            ("a/b".into(), EntryKind::File, "ok".into()),
        ]
    );
}

#[test]
fn pax_records_set_path_and_size() {
    let records = b"19 path=pax/name.y\n";
    let mut bytes = entry(b"PaxHeader", b'x', records, b"");
    bytes.extend(entry(b"short", b'0', b"data", b""));
    let got = all(&bytes, 1 << 20).unwrap();
    assert_eq!(got, [("pax/name.y".into(), EntryKind::File, "data".into())]);
}

#[test]
fn a_long_name_over_the_budget_is_refused_without_being_read() {
    let mut bytes = header(b"././@LongLink", b'L', 1 << 30, b"").to_vec();
    bytes.extend(vec![b'a'; 4096]);
    let err = all(&bytes, 1 << 20).unwrap_err();
    assert_eq!(err.to_string(), "a GNU long name of 1073741824 bytes");
    let mut pax = header(b"PaxHeader", b'x', 2 << 20, b"").to_vec();
    pax.extend(vec![b'1'; 4096]);
    assert!(
        all(&pax, 1 << 20)
            .unwrap_err()
            .to_string()
            .contains("a PAX header")
    );
}

#[test]
fn a_stream_that_is_not_a_tar_fails_at_its_first_header() {
    let err = all(&[b'x'; 1024], 1 << 20).unwrap_err();
    assert!(err.to_string().contains("checksum"), "{err}");
    let mut cut = entry(b"f", b'0', &[b'1'; 600], b"");
    cut.truncate(700);
    assert!(all(&cut, 1 << 20).is_err());
}

#[test]
fn sparse_entries_and_devices_are_reported_not_expanded() {
    let mut sparse = header(b"big", b'S', 0, b"");
    // realsize: an exabyte, with one extension block following.
    sparse[483..495].copy_from_slice(b"77777777777\0");
    sparse[482] = 1;
    set_checksum(&mut sparse);
    let mut bytes = sparse.to_vec();
    bytes.extend([0u8; BLOCK]);
    bytes.extend(entry(b"fifo", b'6', b"", b""));
    bytes.extend(entry(b"after", b'0', b"x", b""));
    let got = all(&bytes, 1 << 20).unwrap();
    assert_eq!(
        got,
        [
            ("big".into(), EntryKind::Sparse, String::new()),
            ("fifo".into(), EntryKind::Other(b'6'), String::new()),
            ("after".into(), EntryKind::File, "x".into()),
        ]
    );
}

#[test]
fn numbers_in_octal_and_base_256() {
    assert_eq!(number(b"00000000012\0"), Some(10));
    assert_eq!(number(b"   12 \0"), Some(10));
    assert_eq!(
        number(&[0x80, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0]),
        Some(1 << 32)
    );
    assert_eq!(number(b"9"), None);
    assert_eq!(number(&[0xff; 12]), None);
    // Leading NULs are trimmed, as Go trims them: this is 1024, not 0.
    assert_eq!(number(b"\0\0\0\0\0\0\x002000\0"), Some(1024));
    assert_eq!(number(&[0u8; 12]), Some(0));
    assert_eq!(
        number(&[
            0x80, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0
        ]),
        None
    );
}

/// A header whose data hides another entry: Go's reader and this one must see the same
/// entries.
fn hiding(flag: u8, name: &[u8]) -> Vec<u8> {
    let hidden = entry(b"configs/hidden/catalog.yaml", b'0', b"x", b"");
    let mut out = header(name, flag, hidden.len() as u64, b"").to_vec();
    out.extend(&hidden);
    out.extend(entry(b"configs/after", b'0', b"y", b""));
    out
}

fn names(bytes: &[u8]) -> Vec<String> {
    all(bytes, 1 << 20)
        .unwrap()
        .into_iter()
        .map(|e| e.0)
        .collect()
}

#[test]
fn entries_read_as_go_reads_them() {
    // A FIFO, a device or a link carries no data: what follows its header is the next entry.
    for flag in [b'3', b'4', b'6', b'1', b'2', b'5'] {
        assert_eq!(
            names(&hiding(flag, b"configs/x")),
            ["configs/x", "configs/hidden/catalog.yaml", "configs/after"],
            "type {}",
            flag as char
        );
    }
    // An entry whose name ends in `/` keeps its data (Go skips it by its size); only one of
    // type NUL is a directory then, the others are files.
    let kinds = |bytes: &[u8]| -> Vec<(String, EntryKind)> {
        all(bytes, 1 << 20)
            .unwrap()
            .into_iter()
            .map(|e| (e.0, e.1))
            .collect()
    };
    assert_eq!(
        kinds(&hiding(b'0', b"configs/dir/")),
        [
            ("configs/dir/".into(), EntryKind::File),
            ("configs/after".into(), EntryKind::File)
        ]
    );
    assert_eq!(
        kinds(&hiding(0, b"configs/dir/")),
        [
            ("configs/dir/".into(), EntryKind::Dir),
            ("configs/after".into(), EntryKind::File)
        ]
    );
}

#[test]
fn a_size_that_cannot_be_a_size_is_refused() {
    let mut h = header(b"f", b'0', 0, b"");
    h[124..136].copy_from_slice(&[
        0x80, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    ]);
    set_checksum(&mut h);
    assert!(all(&h, 1 << 20).is_err());
    let mut h = header(b"f", b'0', 0, b"");
    h[124..136].copy_from_slice(b"\0\0\0\0\0\0\x002000\0");
    set_checksum(&mut h);
    let mut bytes = h.to_vec();
    bytes.extend(entry(b"hidden", b'0', b"x", b""));
    bytes.resize(512 + 1024, 0);
    bytes.extend(entry(b"after", b'0', b"y", b""));
    assert_eq!(names(&bytes), ["f", "after"]);
}

#[test]
fn a_header_after_a_block_of_zeros_is_an_error() {
    let mut bytes = entry(b"a", b'0', b"1", b"");
    bytes.extend([0u8; 512]);
    bytes.extend(entry(b"b", b'0', b"2", b""));
    assert!(all(&bytes, 1 << 20).is_err());
    let mut end = entry(b"a", b'0', b"1", b"");
    end.extend([0u8; 512]);
    assert_eq!(names(&end), ["a"]);
}

#[test]
fn a_gnu_sparse_name_stands_for_the_entry() {
    let records = b"29 GNU.sparse.name=real.yaml\n";
    let mut bytes = entry(b"PaxHeader", b'x', records, b"");
    bytes.extend(entry(b"GNUSparseFile.0/real.yaml", b'0', b"", b""));
    let got = all(&bytes, 1 << 20).unwrap();
    assert_eq!(
        got,
        [("real.yaml".into(), EntryKind::Sparse, String::new())]
    );
}
