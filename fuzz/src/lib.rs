//! What every format reader's fuzz target holds, in one place: a read that succeeds writes
//! back the same bytes, `read_owned` (the reader taking the bytes) reads what `read` reads,
//! and `read_each` (block by block) hands over the blocks and holes `read` reads.

/// Reads `data` as the format `id`; panics (the fuzzer's finding) when the two reads
/// disagree or a no-op write changes the bytes.
pub fn reads_back(id: &str, data: &[u8]) {
    let Some(format) = kapi_core::formats::by_id(id) else {
        return;
    };
    let read = format.read(data);
    let owned = format.read_owned(data.to_vec());
    match (&read, &owned) {
        (Ok(a), Ok(b)) => assert!(
            a.document == b.document && a.skeleton == b.skeleton,
            "read_owned read another document"
        ),
        (Err(_), Err(_)) => {}
        _ => panic!("read and read_owned disagree on whether the bytes read"),
    }
    let (mut blocks, mut holes) = (Vec::new(), Vec::new());
    let each = format.read_each(data.to_vec(), &mut |_, block, its| {
        blocks.push(block);
        holes.extend_from_slice(its);
    });
    match (&read, &each) {
        (Ok(a), Ok(_)) => {
            assert!(a.document.blocks == blocks, "read_each handed other blocks");
            let mut read_holes = a.skeleton.holes.clone();
            read_holes.sort_by_key(|h| h.block);
            assert!(read_holes == holes, "read_each handed other holes");
        }
        (Err(_), Err(_)) => {}
        _ => panic!("read and read_each disagree on whether the bytes read"),
    }
    if let Ok(parsed) = read {
        let written = format.write(&parsed);
        assert_eq!(
            written.as_deref(),
            Ok(data),
            "a no-op round trip changed the bytes"
        );
    }
}
