//! Xiangqi under the Asian rules (`--rules asian`): what a check and a chase are, and one round
//! of perpetual check and perpetual chase rulings among the draws of a solve.
//!
//! The side that moves is X, its opponent Y. From a drawn position X checks perpetually when
//! every move of X that does not lose (a move into a drawn position; a capture into a drawn
//! smaller ending escapes the rule) gives check, into a position where Y has a drawing answer
//! that keeps the cycle going. X chases perpetually when every such move chases one and the same
//! Y piece. Both sets are greatest fixed points: mark the candidates, then remove the false
//! marks until nothing changes. Y's answer that keeps the cycle must not itself check (both
//! sides checking cancels, and a checker against a chaser loses), and against a chase must not
//! chase either (both sides chasing cancels). Positions of the sets are lost for X.

use rayon::prelude::*;

use super::board::{Board, Kind, NONE, geometry, rank};
use super::index::{MAX_PIECES, XiangqiIndex};
use super::moves::{for_each_legal_move, in_check, targets};
use super::space::XiangqiSpace;
use crate::material::{Material, Side};
use crate::solver::rounds::Reason;
use crate::value::{DRAW, Entry, Value};

/// Whether the Asian rules can change anything in a material: both sides have an attacking
/// piece (rook, cannon, horse or pawn). In other materials the Asian table is the default one.
pub fn rules_apply(material: &Material) -> bool {
    Side::BOTH.into_iter().all(|side| {
        [Kind::Rook, Kind::Cannon, Kind::Horse, Kind::Pawn]
            .into_iter()
            .any(|kind| material.count(side, kind.index()) > 0)
    })
}

/// What a move is under the rules.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Threats {
    /// It gives check.
    pub check: bool,
    /// Squares of the opponent's pieces it chases (bit per square).
    pub chases: u128,
}

/// Per piece slot of `side`, the squares of enemy pieces (kings excepted) it reaches on the
/// board, legal or not (`legal_only`: only those it could legally capture with `side` to move). Kings
/// and pawns never chase, so they are left out.
fn reaches(board: &mut Board, side: usize, legal_only: bool) -> [u128; MAX_PIECES] {
    let layout = board.layout;
    let enemy_king = board.squares[layout.king(1 - side)];
    let mut out = [0; MAX_PIECES];
    let (start, end) = layout.sides[side];
    for (slot, found) in out.iter_mut().enumerate().take(end).skip(start) {
        if board.squares[slot] == NONE || matches!(layout.kind[slot], Kind::King | Kind::Pawn) {
            continue;
        }
        for &to in targets(board, slot).as_slice() {
            let prey = to != enemy_king && board.side_occupied[1 - side] & (1u128 << to) != 0;
            if prey && (!legal_only || legal(board, slot, to)) {
                *found |= 1u128 << to;
            }
        }
    }
    out
}

/// Per piece slot of `side`, the squares of enemy pieces (kings excepted) it could legally
/// capture with `side` to move.
pub fn attacks(board: &mut Board, side: usize) -> [u128; MAX_PIECES] {
    reaches(board, side, true)
}

/// Per piece slot of `side`, the squares of enemy pieces (kings excepted) on its lines, whether
/// or not a capture would be legal: what a move of `side` is compared with, so that a threat
/// only counts as made by the move when the move put the piece or opened its line, not when it
/// only made an old capture legal (a king leaving check, a pin undone).
pub fn reach(board: &mut Board, side: usize) -> [u128; MAX_PIECES] {
    reaches(board, side, false)
}

/// Whether moving the piece in `slot` to `to` leaves its own king safe.
fn legal(board: &mut Board, slot: usize, to: u8) -> bool {
    let side = usize::from(board.layout.side[slot]);
    let undo = board.make(slot, to);
    let safe = !in_check(board, side);
    board.unmake(undo);
    safe
}

/// Whether the piece in `slot` can legally capture what stands on `square`.
fn can_capture(board: &mut Board, slot: usize, square: u8) -> bool {
    board.squares[slot] != NONE && targets(board, slot).as_slice().contains(&square) && legal(board, slot, square)
}

/// Whether a pawn of `side` on `square` has crossed the river.
fn crossed(side: usize, square: u8) -> bool {
    if side == 0 {
        rank(square) >= 5
    } else {
        rank(square) <= 4
    }
}

/// Whether the attack of the piece in `attacker` on the enemy piece on `square` counts as a
/// chase: a rook attacked by a horse or a cannon always; otherwise only an unprotected target
/// (no legal recapture on its point), a pawn only once across the river, and a rook, horse or
/// cannon attacked by its own kind only when it cannot capture the attacker back.
fn counts(board: &mut Board, attacker: usize, square: u8) -> bool {
    let layout = board.layout;
    let side = usize::from(layout.side[attacker]);
    let enemy = 1 - side;
    let (start, end) = layout.sides[enemy];
    let target = (start..end)
        .find(|&s| board.squares[s] == square)
        .expect("an attacked square holds an enemy piece");
    let (by, kind) = (layout.kind[attacker], layout.kind[target]);
    if kind == Kind::Rook && matches!(by, Kind::Horse | Kind::Cannon) {
        return true;
    }
    if kind == Kind::Pawn && !crossed(enemy, square) {
        return false;
    }
    if by == kind && can_capture(board, target, board.squares[attacker]) {
        return false;
    }
    let undo = board.make(attacker, square);
    let protected = (start..end).any(|s| can_capture(board, s, square));
    board.unmake(undo);
    !protected
}

/// What the move just made on `after` by `mover` is: a check, and the chases it creates: threats
/// that count, by pieces that did not reach the target before the move (`before`: [`reach`] of
/// the position before the move): the moved piece, or one whose line the move opened.
pub fn threats(after: &mut Board, mover: usize, before: &[u128; MAX_PIECES]) -> Threats {
    let check = in_check(after, 1 - mover);
    let now = attacks(after, mover);
    let mut chases = 0u128;
    for (slot, (&now, &before)) in now.iter().zip(before).enumerate() {
        let mut new = now & !before & !chases;
        while new != 0 {
            let square = new.trailing_zeros() as u8;
            new &= new - 1;
            if counts(after, slot, square) {
                chases |= 1u128 << square;
            }
        }
    }
    Threats { check, chases }
}

/// A move from a drawn position into a drawn in-table position, kept small: a round holds one
/// for every such move of every drawn position.
#[derive(Clone, Copy, Debug)]
struct Step {
    /// The node of the canonical child.
    child: u32,
    /// The child is the mirror image of the board after the move.
    mirrored: bool,
    check: bool,
    from: u8,
    to: u8,
    /// The chased squares (a bit per square, 90 bits in three words).
    chases: [u32; 3],
}

impl Step {
    fn chases(&self) -> u128 {
        let [a, b, c] = self.chases.map(u128::from);
        a | b << 32 | c << 64
    }
}

/// A drawn position: whether a capture into a drawn smaller ending escapes, and its drawing
/// in-table moves.
struct DrawNode {
    escapes: bool,
    steps: Vec<Step>,
}

/// The drawn positions of a round and their drawing moves.
struct Draws {
    states: Vec<u64>,
    nodes: Vec<DrawNode>,
}

impl Draws {
    fn find(space: &XiangqiSpace, index: &XiangqiIndex, entries: &[Entry]) -> Draws {
        let states: Vec<u64> = entries
            .par_iter()
            .enumerate()
            .filter(|&(_, &e)| e == DRAW)
            .map(|(state, _)| state as u64)
            .collect();
        assert!(states.len() < u32::MAX as usize, "fewer than 2^32 draws");
        let mut node_of = vec![u32::MAX; entries.len()];
        for (i, &state) in states.iter().enumerate() {
            node_of[state as usize] = i as u32;
        }
        let nodes = states
            .par_iter()
            .map(|&state| draw_node(space, index, &node_of, state))
            .collect();
        Draws { states, nodes }
    }

    fn node(&self, step: &Step) -> &DrawNode {
        &self.nodes[step.child as usize]
    }
}

fn draw_node(space: &XiangqiSpace, index: &XiangqiIndex, node_of: &[u32], state: u64) -> DrawNode {
    let mut decoded = index.decode_state(state).expect("a drawn state is legal");
    let mover = decoded.side_to_move;
    let layout = &index.layout;
    let child_base = (1 - mover) as u64 * index.per_side;
    let before = reach(&mut decoded.board, mover);
    let start = decoded.board.squares;
    let mut escapes = false;
    let mut steps = Vec::new();
    for_each_legal_move(&mut decoded.board, mover, |board, slot, victim| {
        if victim != NONE {
            escapes |= space.exit_value(board, usize::from(victim), 1 - mover) == Value::Draw;
            return;
        }
        let (child, mirrored) = layout.slot_after(&decoded.digits, &board.squares, slot);
        let child = node_of[(child_base + child) as usize];
        if child == u32::MAX {
            return;
        }
        let threats = threats(&mut board.clone(), mover, &before);
        let c = threats.chases;
        steps.push(Step {
            child,
            mirrored,
            check: threats.check,
            from: start[slot],
            to: board.squares[slot],
            chases: [c as u32, (c >> 32) as u32, (c >> 64) as u32],
        });
    });
    steps.shrink_to_fit();
    DrawNode { escapes, steps }
}

/// The rounds of rulings of one material: the drawn positions and their drawing moves are found
/// once, in the first round; later rounds only drop the positions that stopped being draws
/// (values only ever go from draw to decided, and exits never change).
pub struct Rounds<'a> {
    space: &'a XiangqiSpace<'a>,
    index: &'a XiangqiIndex,
    draws: Option<Draws>,
}

impl<'a> Rounds<'a> {
    pub fn new(space: &'a XiangqiSpace<'a>, index: &'a XiangqiIndex) -> Rounds<'a> {
        Rounds {
            space,
            index,
            draws: None,
        }
    }

    /// One round: the drawn states (under `entries`) that the rules rule lost, with the reason.
    pub fn rulings(&mut self, entries: &[Entry]) -> Vec<(u64, Reason)> {
        let draws = self
            .draws
            .get_or_insert_with(|| Draws::find(self.space, self.index, entries));
        let live: Vec<bool> = draws.states.par_iter().map(|&s| entries[s as usize] == DRAW).collect();
        rule(draws, &live)
    }
}

/// The live nodes that the rules rule lost, as states with the reason.
fn rule(draws: &Draws, live: &[bool]) -> Vec<(u64, Reason)> {
    let checks = perpetual_checks(draws, live);
    let chases = perpetual_chases(draws, live);
    draws
        .states
        .iter()
        .zip(checks.iter().zip(&chases))
        .filter_map(|(&state, (&check, &chase))| {
            if check {
                Some((state, Reason::PerpetualCheck))
            } else if chase != 0 {
                Some((state, Reason::PerpetualChase))
            } else {
                None
            }
        })
        .collect()
}

/// The moves of a node into positions that are still draws.
fn live_steps<'d>(node: &'d DrawNode, live: &'d [bool]) -> impl Iterator<Item = &'d Step> {
    node.steps.iter().filter(|s| live[s.child as usize])
}

/// Whether the mover of a live node may be in a perpetual: no escape and at least one drawing
/// move, all of them of the kind `all` accepts.
fn candidate(node: &DrawNode, live: &[bool], all: impl Fn(&Step) -> bool) -> bool {
    !node.escapes && live_steps(node, live).next().is_some() && live_steps(node, live).all(all)
}

/// Whether the mover of a live node starts as a perpetual checker: every drawing move checks.
fn check_candidate(node: &DrawNode, live: &[bool]) -> bool {
    candidate(node, live, |s| s.check)
}

/// The squares of the pieces that the mover of a live node starts as chasing perpetually: those
/// that every drawing move chases, none of them a check.
fn chase_candidates(node: &DrawNode, live: &[bool]) -> u128 {
    if candidate(node, live, |s| !s.check) {
        live_steps(node, live).fold(!0, |m, s| m & s.chases())
    } else {
        0
    }
}

/// Per drawn state of `entries`: the state, whether its mover starts as a perpetual checker, and
/// the squares it starts as chasing (the first pass of a round, which the GPU twin is held to).
#[cfg(test)]
pub(crate) fn candidates(space: &XiangqiSpace, index: &XiangqiIndex, entries: &[Entry]) -> Vec<(u64, bool, u128)> {
    let draws = Draws::find(space, index, entries);
    let live = vec![true; draws.states.len()];
    let marks = draws
        .nodes
        .iter()
        .map(|node| (check_candidate(node, &live), chase_candidates(node, &live)));
    draws
        .states
        .iter()
        .zip(marks)
        .map(|(&state, (check, chases))| (state, check, chases))
        .collect()
}

/// Per node: the mover can only go on checking perpetually.
fn perpetual_checks(draws: &Draws, live: &[bool]) -> Vec<bool> {
    let mut marked: Vec<bool> = draws
        .nodes
        .par_iter()
        .zip(live)
        .map(|(node, &live_node)| live_node && check_candidate(node, live))
        .collect();
    loop {
        let next: Vec<bool> = draws
            .nodes
            .par_iter()
            .enumerate()
            .map(|(i, node)| {
                marked[i]
                    && live_steps(node, live).all(|step| {
                        live_steps(draws.node(step), live).any(|answer| !answer.check && marked[answer.child as usize])
                    })
            })
            .collect();
        if next == marked {
            return marked;
        }
        marked = next;
    }
}

/// Per node: the squares of the pieces the mover can only go on chasing perpetually.
fn perpetual_chases(draws: &Draws, live: &[bool]) -> Vec<u128> {
    let mirror = &geometry().mirror;
    let map = |square: u8, mirrored: bool| if mirrored { mirror[usize::from(square)] } else { square };
    let mut marked: Vec<u128> = draws
        .nodes
        .par_iter()
        .zip(live)
        .map(|(node, &live_node)| if live_node { chase_candidates(node, live) } else { 0 })
        .collect();
    loop {
        let next: Vec<u128> = draws
            .nodes
            .par_iter()
            .enumerate()
            .map(|(i, node)| {
                let mut kept = 0u128;
                let mut targets = marked[i];
                while targets != 0 {
                    let target = targets.trailing_zeros() as u8;
                    targets &= targets - 1;
                    let keeps = live_steps(node, live).all(|step| {
                        let at_child = map(target, step.mirrored);
                        live_steps(draws.node(step), live).any(|answer| {
                            let quiet = !answer.check && answer.chases == [0; 3];
                            let moved = if answer.from == at_child { answer.to } else { at_child };
                            let next = map(moved, answer.mirrored);
                            quiet && marked[answer.child as usize] >> next & 1 == 1
                        })
                    });
                    if keeps {
                        kept |= 1u128 << target;
                    }
                }
                kept
            })
            .collect();
        if next == marked {
            return marked;
        }
        marked = next;
    }
}

#[cfg(test)]
mod tests {
    use super::super::notation::{parse_fen, parse_move};
    use super::*;

    /// What the move `mv` (ICCS) of the side to move in `fen` is under the rules.
    fn threats_of(fen: &str, mv: &str) -> Threats {
        let position = parse_fen(fen).unwrap();
        let mv = parse_move(&position, mv).unwrap();
        let mover = position.side_to_move.index();
        position.with_board(|board| {
            let before = reach(board, mover);
            let slot = (0..board.layout.pieces).find(|&s| board.squares[s] == mv.from).unwrap();
            board.make(slot, mv.to);
            threats(board, mover, &before)
        })
    }

    fn bit(square: &str) -> u128 {
        let b = square.as_bytes();
        1u128 << super::super::board::square(b[0] - b'a', b[1] - b'0')
    }

    #[test]
    fn a_rook_attacking_an_unprotected_horse_chases_it() {
        let t = threats_of("3k5/9/2n6/9/9/9/9/9/9/R3K4 w", "a0a7");
        assert_eq!(
            t,
            Threats {
                check: false,
                chases: bit("c7")
            }
        );
    }

    #[test]
    fn a_horse_attacking_a_rook_chases_it_even_when_protected() {
        let t = threats_of("3k5/9/9/9/9/9/5R3/9/9/2n2K3 b", "c0d2");
        assert!(!t.check);
        assert_eq!(t.chases, bit("f3"));
        let protected = threats_of("3k5/9/9/9/9/9/9/9/5R3/2n2K3 b", "c0d2");
        assert_eq!(protected.chases, bit("f1"), "the king on f0 protects the rook on f1");
    }

    #[test]
    fn a_protected_horse_is_not_chased() {
        let unprotected = threats_of("3k5/9/9/9/2n6/9/9/9/9/R3K4 w", "a0a5");
        assert_eq!(unprotected.chases, bit("c5"));
        let protected = threats_of("3k5/9/b8/9/2n6/9/9/9/9/R3K4 w", "a0a5");
        assert_eq!(protected.chases, 0);
    }

    #[test]
    fn a_rook_that_can_capture_the_attacking_rook_back_is_not_chased() {
        let t = threats_of("3k5/9/2r6/9/9/9/9/9/9/R3K4 w", "a0a7");
        assert_eq!(t.chases, 0);
    }

    #[test]
    fn pawns_count_only_across_the_river_and_never_chase() {
        let home = threats_of("3k5/9/9/9/2p6/9/9/9/9/R3K4 w", "a0a5");
        assert_eq!(home.chases, 0);
        let crossed = threats_of("3k5/9/9/9/9/9/2p6/9/9/R3K4 w", "a0a3");
        assert_eq!(crossed.chases, bit("c3"));
        let pawn = threats_of("3k5/9/9/4n4/9/4P4/9/9/9/4K4 w", "e4e5");
        assert_eq!(pawn.chases, 0);
    }

    #[test]
    fn a_check_is_a_check_and_an_old_threat_is_no_chase() {
        let t = threats_of("3k5/9/9/9/9/9/9/9/9/R3K4 w", "a0d0");
        assert!(t.check);
        let t = threats_of("3k5/9/2n6/9/9/9/9/9/9/2R1K4 w", "c0c1");
        assert_eq!(t.chases, 0, "the rook attacked the horse before its move");
        let discovered = threats_of("3k5/9/2n6/9/9/9/9/2N6/9/2R1K4 w", "c2a3");
        assert_eq!(discovered.chases, bit("c7"), "the move opened the rook's file");
    }

    #[test]
    fn a_capture_made_legal_by_leaving_check_or_a_pin_is_no_chase() {
        // The rook on e0 checks; once the king steps aside, the rook on a2 may take the advisor.
        let t = threats_of("9/9/4k4/9/9/9/9/r2A5/9/3KR4 b", "e7d7");
        assert_eq!(t, Threats::default());
        // The advisor on e1 is pinned by the facing kings; the king's step frees it.
        let t = threats_of("9/9/4k4/9/9/9/9/3n5/4A4/C3K4 w", "e0d0");
        assert_eq!(t, Threats::default());
    }

    #[test]
    fn the_rules_apply_only_when_both_sides_can_attack() {
        let m = |s: &str| Material::parse(crate::material::GameId::Xiangqi, s).unwrap();
        assert!(rules_apply(&m("KRvKN")));
        assert!(rules_apply(&m("KPvKP")));
        assert!(!rules_apply(&m("KRvKAA")));
        assert!(!rules_apply(&m("KvKNE")));
    }

    /// A move of a synthetic draw graph: into node `child`, moving `from` to `to`, a check or
    /// not, chasing the piece on `chase` or nothing.
    fn step(child: u32, check: bool, chase: Option<u8>, from: u8, to: u8) -> Step {
        let c = chase.map_or(0u128, |q| 1u128 << q);
        Step {
            child,
            mirrored: false,
            check,
            from,
            to,
            chases: [c as u32, (c >> 32) as u32, (c >> 64) as u32],
        }
    }

    /// The rulings of a synthetic draw graph (node i is state 100 + i), all nodes live but
    /// those listed as dead.
    fn rule_graph(nodes: Vec<(bool, Vec<Step>)>, dead: &[usize]) -> Vec<(u64, Reason)> {
        let n = nodes.len();
        let draws = Draws {
            states: (0..n as u64).map(|i| 100 + i).collect(),
            nodes: nodes
                .into_iter()
                .map(|(escapes, steps)| DrawNode { escapes, steps })
                .collect(),
        };
        let live: Vec<bool> = (0..n).map(|i| !dead.contains(&i)).collect();
        rule(&draws, &live)
    }

    const CHECK: Reason = Reason::PerpetualCheck;
    const CHASE: Reason = Reason::PerpetualChase;

    #[test]
    fn a_perpetual_check_against_quiet_evasions_loses() {
        let graph = vec![
            (false, vec![step(1, true, None, 0, 1)]),
            (false, vec![step(0, false, None, 5, 6)]),
        ];
        assert_eq!(rule_graph(graph, &[]), [(100, CHECK)]);
    }

    #[test]
    fn mutual_perpetual_check_stays_a_draw() {
        let graph = vec![
            (false, vec![step(1, true, None, 0, 1)]),
            (false, vec![step(0, true, None, 5, 6)]),
        ];
        assert_eq!(rule_graph(graph, &[]), []);
    }

    #[test]
    fn a_checker_against_a_chaser_loses() {
        let graph = vec![
            (false, vec![step(1, true, None, 0, 1)]),
            (false, vec![step(0, false, Some(0), 5, 6)]),
        ];
        assert_eq!(rule_graph(graph, &[]), [(100, CHECK)]);
    }

    #[test]
    fn a_drawing_capture_escapes_and_a_quiet_drawing_move_too() {
        let escaping = vec![
            (true, vec![step(1, true, None, 0, 1)]),
            (false, vec![step(0, false, None, 5, 6)]),
        ];
        assert_eq!(rule_graph(escaping, &[]), []);
        let quiet = || {
            vec![
                (false, vec![step(1, true, None, 0, 1), step(2, false, None, 0, 2)]),
                (false, vec![step(0, false, None, 5, 6)]),
                (false, vec![step(0, false, None, 5, 7)]),
            ]
        };
        assert_eq!(rule_graph(quiet(), &[]), []);
        // Once the quiet move's position is decided (a later round), only the check is left.
        assert_eq!(rule_graph(quiet(), &[2]), [(100, CHECK)]);
    }

    #[test]
    fn a_perpetual_chase_of_one_piece_loses_even_as_it_runs() {
        // X chases the piece on 20; Y moves it to 30; X chases it there; Y moves it back.
        let graph = |second_target: u8| {
            vec![
                (false, vec![step(1, false, Some(20), 3, 4)]),
                (false, vec![step(2, false, None, 20, 30)]),
                (false, vec![step(3, false, Some(second_target), 4, 3)]),
                (false, vec![step(0, false, None, 30, 20)]),
            ]
        };
        assert_eq!(rule_graph(graph(30), &[]), [(100, CHASE), (102, CHASE)]);
        assert_eq!(
            rule_graph(graph(31), &[]),
            [],
            "chasing another piece is no perpetual chase"
        );
    }

    #[test]
    fn mutual_perpetual_chase_stays_a_draw() {
        let graph = vec![
            (false, vec![step(1, false, Some(20), 3, 4)]),
            (false, vec![step(0, false, Some(4), 40, 41)]),
        ];
        assert_eq!(rule_graph(graph, &[]), []);
    }
}
