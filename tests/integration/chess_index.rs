//! The chess index scheme: round trips, symmetric images, weights against full-board counts.

use egtb::games::chess::board::{Men, Placement, file, geometry, rank};
use egtb::games::chess::{Chess, Position};
use egtb::games::{Game, IndexSpace};
use egtb::material::Side;

use crate::support::Rng;
use crate::support::chess::{image, index, material, random_position};

#[test]
fn locate_is_invariant_under_symmetry_and_decode_gives_an_image() {
    let mut rng = Rng::new(3);
    // 6-piece materials without two pairs of identical men have more than 2^32 states.
    let mut beyond_32_bits = 0;
    for name in [
        "KvK", "KQvK", "KRRvK", "KNNNvK", "KRvKB", "KQvKQ", "KRRvKR", "KBBvKN", "KQRvKB", "KRRvKRR", "KNNNNvK",
        "KRRRvKB", "KQRvKRB",
    ] {
        let m = material(name);
        let index = index(&m);
        for _ in 0..2000 {
            let position = random_position(&mut rng, &m);
            let state = index.locate(&position);
            beyond_32_bits += u32::try_from(state).is_err() as usize;
            assert!(state < index.states());
            assert_eq!(index.side_to_move(state), position.side_to_move());
            let canonical = index.decode(state).expect("a legal position decodes");
            let images: Vec<Position> = (0..8).map(|s| image(&position, s)).collect();
            assert!(images.contains(&canonical), "{name}: {canonical:?}");
            for (s, im) in images.iter().enumerate() {
                assert_eq!(index.locate(im), state, "{name}: image {s}");
            }
            let mut distinct = images.clone();
            distinct.sort_by_key(|p| format!("{p:?}"));
            distinct.dedup();
            assert_eq!(index.weight(state) as usize, distinct.len(), "{name}");
        }
    }
    assert!(beyond_32_bits > 1000, "{beyond_32_bits} states past 2^32");
}

#[test]
fn pawn_tables_locate_mirror_images_alike_past_32_bits() {
    let mut rng = Rng::new(5);
    let m = material("KRPvKBP");
    let index = index(&m);
    assert!(index.states() > u64::from(u32::MAX));
    let mut beyond_32_bits = 0;
    for _ in 0..2000 {
        let position = random_position(&mut rng, &m);
        let state = index.locate(&position);
        beyond_32_bits += u32::try_from(state).is_err() as usize;
        // Symmetry 1 mirrors the files: the only symmetry of a table with pawns.
        let images = [position.clone(), image(&position, 1)];
        assert!(images.contains(&index.decode(state).expect("a legal position decodes")));
        assert_eq!(index.locate(&images[1]), state);
    }
    assert!(beyond_32_bits > 1000, "{beyond_32_bits} states past 2^32");
}

/// Every legal full-board position of a material of white men, by side to move: kings apart,
/// identical men counted once (their squares increasing), the side not to move not in check.
fn brute_force_counts(name: &str) -> [u64; 2] {
    let men = Men::of_material(&material(name));
    let geo = geometry();
    let n = 2 + men.count;
    let mut squares = vec![0u8; n];
    let mut counts = [0; 2];
    loop {
        let distinct = (0..n).all(|i| (0..i).all(|j| squares[i] != squares[j]));
        let ordered = (3..n).all(|i| men.kind[i - 2] != men.kind[i - 3] || squares[i] > squares[i - 1]);
        let apart = file(squares[0]).abs_diff(file(squares[1])) > 1 || rank(squares[0]).abs_diff(rank(squares[1])) > 1;
        if distinct && ordered && apart {
            let placement = Placement::new([squares[0], squares[1]], &squares[2..]);
            for side in Side::BOTH {
                counts[side.index()] += u64::from(!placement.in_check(geo, &men, side.other()));
            }
        }
        let mut i = 0;
        while i < n && squares[i] == 63 {
            squares[i] = 0;
            i += 1;
        }
        if i == n {
            return counts;
        }
        squares[i] += 1;
    }
}

#[test]
fn weights_sum_to_full_board_counts() {
    for name in ["KvK", "KQvK", "KNvK", "KBBvK", "KRNvK"] {
        let index = index(&material(name));
        let mut sums = [0u64; 2];
        for state in 0..index.states() {
            sums[index.side_to_move(state).index()] += u64::from(index.weight(state));
        }
        assert_eq!(sums, brute_force_counts(name), "{name}");
    }
    // Published: KvK has 3612 placements; KQvK 144508 + 0 + 0 and 0 + 23048 + 200896.
    assert_eq!(brute_force_counts("KvK"), [3612, 3612]);
    assert_eq!(brute_force_counts("KQvK"), [144_508, 223_944]);
}

#[test]
fn broken_slots_decode_to_none_and_weigh_nothing() {
    let index = index(&material("KRRvK"));
    let mut broken = 0;
    for state in (0..index.states()).step_by(97) {
        match index.decode(state) {
            None => {
                assert_eq!(index.weight(state), 0);
                broken += 1;
            }
            Some(position) => assert_eq!(index.locate(&position), state),
        }
    }
    assert!(broken > 0);
    assert_eq!(index.states(), 2 * 462 * 1891);
}

#[test]
fn materials_are_checked() {
    for (name, message) in [
        ("KQQRvKNB", "at most 6"),
        ("KRvKQ", "material KRvKQ is not canonical (write it as KQvKR)"),
        ("KQvQ", "black must have exactly one king, found 0"),
        ("KKvK", "white must have exactly one king, found 2"),
    ] {
        let error = Chess::index(&material(name), Default::default())
            .err()
            .unwrap_or_else(|| panic!("{name} is rejected"));
        assert!(error.to_string().contains(message), "{name}: {error}");
    }
    let all = Chess::materials(5);
    assert!(all.windows(2).all(|w| w[0].pieces() <= w[1].pieces()));
    assert!(all.iter().all(|m| m.is_canonical() && Chess::check_material(m).is_ok()));
    assert_eq!(all[0].to_string(), "KvK");
    let three: Vec<String> = Chess::materials(3).iter().map(|m| m.to_string()).collect();
    assert_eq!(three, ["KvK", "KQvK", "KRvK", "KBvK", "KNvK", "KPvK"]);
    for name in ["KRRvKR", "KRPvKR", "KPPvKP", "KQPvKQ", "KBPvKN", "KPPPvK"] {
        assert!(all.iter().any(|m| m.to_string() == name), "{name}");
    }
    let subs: Vec<String> = Chess::sub_materials(&material("KPvK"))
        .iter()
        .map(|m| m.to_string())
        .collect();
    assert_eq!(subs, ["KvK", "KNvK", "KBvK", "KRvK", "KQvK"]);
}
