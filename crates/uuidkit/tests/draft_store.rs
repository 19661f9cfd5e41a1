//! The draft layouts in a state file: their entries are written, read back after a
//! restart (the format's round trip), shown by kind, and keep generators of other
//! processes (here: other store handles on the same file) apart.

use std::sync::Arc;

use uuidkit::generator::draft::DraftGenerator;
use uuidkit::layout::{Layout, decode_as};
use uuidkit::store::{GeneratorKind, StateStore};

fn state_path(name: &str) -> std::path::PathBuf {
    let dir =
        std::env::temp_dir().join(format!("uuidkit-draft-store-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("state")
}

#[test]
fn every_draft_layout_has_an_entry_that_survives_a_restart() {
    let path = state_path("restart");
    let layouts: Vec<Layout> = Layout::ALL
        .into_iter()
        .filter(|l| !matches!(l, Layout::B1 | Layout::B2))
        .collect();
    let mut last = Vec::new();
    for &l in &layouts {
        let mut g = DraftGenerator::new(l)
            .unwrap()
            .with_store(Arc::new(StateStore::open(&path)));
        let mut u = g.next();
        for _ in 0..999 {
            u = g.next();
        }
        assert!(g.take_store_warnings().is_empty(), "{l}");
        last.push(u);
    }
    let snap = StateStore::open(&path).snapshot().unwrap();
    assert!(snap.damage.is_none(), "{:?}", snap.damage);
    for &l in &layouts {
        let e = snap
            .entries
            .iter()
            .find(|e| e.kind == GeneratorKind::Draft(l))
            .unwrap_or_else(|| panic!("no entry for {l}"));
        assert!(e.durable >= e.high);
        assert_eq!(GeneratorKind::Draft(l).to_string(), l.name());
    }
    // A new process (a new handle on the file) goes on above the last UUIDs.
    for (&l, before) in layouts.iter().zip(&last) {
        let mut g = DraftGenerator::new(l)
            .unwrap()
            .with_store(Arc::new(StateStore::open(&path)));
        let u = g.next();
        let key = |u: &uuidkit::Uuid| {
            let d = decode_as(u, l).unwrap();
            (d.timestamp.unwrap(), d.sequence.unwrap())
        };
        assert!(key(&u) > key(before), "{l}: {u} not above {before}");
        assert!(g.take_store_warnings().is_empty(), "{l}");
    }
}

#[test]
fn two_handles_on_one_file_never_share_a_position() {
    let path = state_path("share");
    let l: Layout = "draft-v8-32".parse().unwrap();
    let mut a = DraftGenerator::new(l)
        .unwrap()
        .with_store(Arc::new(StateStore::open(&path)));
    let mut b = DraftGenerator::new(l)
        .unwrap()
        .with_store(Arc::new(StateStore::open(&path)));
    let mut seen = std::collections::HashSet::new();
    for _ in 0..5000 {
        for u in [a.next(), b.next()] {
            let d = decode_as(&u, l).unwrap();
            assert!(seen.insert((d.timestamp, d.sequence)), "{u}");
        }
    }
}
