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

use anyhow::{Result, bail};
use rayon::prelude::*;

use super::board::{Board, Kind, NONE, crossed, geometry};
use super::index::{MAX_PIECES, XiangqiIndex};
use super::moves::{for_each_legal_move, in_check, targets};
use super::space::XiangqiSpace;
use crate::counted::counted;
use crate::material::Material;
use crate::memory;
use crate::rulings::Reason;
use crate::value::{DRAW, Entry, Value};

/// Whether the Asian rules can change anything in a material: both sides have an attacking
/// piece (rook, cannon, horse or pawn). In other materials the Asian table is the default one.
pub fn rules_apply(material: &Material) -> bool {
    material.counts.iter().all(|counts| Kind::attackers(counts) > 0)
}

/// What a move is under the rules.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Threats {
    /// It gives check.
    pub check: bool,
    /// Squares of the opponent's pieces it chases (bit per square).
    pub chases: u128,
}

/// Per piece of `side`, the squares of enemy pieces (kings excepted) it reaches on the
/// board, legal or not (`legal_only`: only those it could legally capture with `side` to move). Kings
/// and pawns never chase, so they are left out.
fn reaches(board: &mut Board, side: usize, legal_only: bool) -> [u128; MAX_PIECES] {
    let layout = board.layout;
    let enemy_king = board.squares[layout.king(1 - side)];
    let mut out = [0; MAX_PIECES];
    let (start, end) = layout.sides[side];
    for (piece, found) in out.iter_mut().enumerate().take(end).skip(start) {
        if board.squares[piece] == NONE || matches!(layout.kind[piece], Kind::King | Kind::Pawn) {
            continue;
        }
        for &to in targets(board, piece).as_slice() {
            let prey = to != enemy_king && board.side_occupied[1 - side] & (1u128 << to) != 0;
            if prey && (!legal_only || legal(board, piece, to)) {
                *found |= 1u128 << to;
            }
        }
    }
    out
}

/// Per piece of `side`, the squares of enemy pieces (kings excepted) it could legally
/// capture with `side` to move.
pub fn attacks(board: &mut Board, side: usize) -> [u128; MAX_PIECES] {
    reaches(board, side, true)
}

/// Per piece of `side`, the squares of enemy pieces (kings excepted) on its lines, whether
/// or not a capture would be legal: what a move of `side` is compared with, so that a threat
/// only counts as made by the move when the move put the piece or opened its line, not when it
/// only made an old capture legal (a king leaving check, a pin undone).
pub fn reach(board: &mut Board, side: usize) -> [u128; MAX_PIECES] {
    reaches(board, side, false)
}

/// Whether moving `piece` to `to` leaves its own king safe.
fn legal(board: &mut Board, piece: usize, to: u8) -> bool {
    let side = usize::from(board.layout.side[piece]);
    let undo = board.make(piece, to);
    let safe = !in_check(board, side);
    board.unmake(undo);
    safe
}

/// Whether `piece` can legally capture what stands on `square`.
fn can_capture(board: &mut Board, piece: usize, square: u8) -> bool {
    board.squares[piece] != NONE && targets(board, piece).as_slice().contains(&square) && legal(board, piece, square)
}

/// Whether the attack of `attacker` on the enemy piece on `square` counts as a
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
    for (piece, (&now, &before)) in now.iter().zip(before).enumerate() {
        let mut new = now & !before & !chases;
        while new != 0 {
            let square = new.trailing_zeros() as u8;
            new &= new - 1;
            if counts(after, piece, square) {
                chases |= 1u128 << square;
            }
        }
    }
    Threats { check, chases }
}

/// A move from a drawn position into a drawn in-table position, in 12 bytes: a round holds one
/// for every such move of every drawn position, so this is most of the Asian solve's memory.
#[derive(Clone, Copy, Debug)]
struct Step {
    /// The node of the canonical child.
    child: u32,
    /// Where the chased squares are in the chunk's `chases`, or [`NO_CHASE`] (most moves).
    chase: u32,
    from: u8,
    to: u8,
    /// [`MIRRORED`] and [`CHECK`].
    flags: u8,
}

/// No piece chased.
const NO_CHASE: u32 = u32::MAX;
/// The child is the mirror image of the board after the move.
const MIRRORED: u8 = 1;
/// The move gives check.
const CHECK: u8 = 2;

impl Step {
    fn mirrored(&self) -> bool {
        self.flags & MIRRORED != 0
    }

    fn check(&self) -> bool {
        self.flags & CHECK != 0
    }

    /// A move that neither checks nor chases.
    fn quiet(&self) -> bool {
        !self.check() && self.chase == NO_CHASE
    }
}

/// Drawn positions a chunk of the graph holds: chunks are built in parallel, each one allocation
/// per field, instead of one per position.
const CHUNK: usize = 1 << 12;

/// The drawing moves of [`CHUNK`] consecutive drawn positions.
#[derive(Default)]
struct Chunk {
    /// Per position: where its steps end in `steps` (they start where the previous one's end).
    ends: Vec<u32>,
    /// Per position: a capture into a drawn smaller ending escapes the rules.
    escapes: Vec<bool>,
    steps: Vec<Step>,
    /// The chased squares of the steps that chase (a bit per square).
    chases: Vec<u128>,
}

impl Chunk {
    /// The chunk of the drawn `states`, without spare capacity (the graph is built once and
    /// kept for every round).
    fn build(space: &XiangqiSpace, index: &XiangqiIndex, drawn: &NodeNumbers, states: &[u64]) -> Chunk {
        let mut chunk = Chunk::default();
        for &state in states {
            push_draw_node(space, index, drawn, state, &mut chunk);
        }
        chunk.steps.shrink_to_fit();
        chunk.chases.shrink_to_fit();
        chunk
    }

    fn push_step(&mut self, child: u32, mirrored: bool, check: bool, from: u8, to: u8, chases: u128) {
        let chase = if chases == 0 {
            NO_CHASE
        } else {
            self.chases.push(chases);
            u32::try_from(self.chases.len() - 1).expect("a chunk holds fewer than 2^32 chases")
        };
        let flags = if mirrored { MIRRORED } else { 0 } | if check { CHECK } else { 0 };
        self.steps.push(Step {
            child,
            chase,
            from,
            to,
            flags,
        });
    }

    /// Ends the position whose steps were pushed since the last one ended.
    fn end_node(&mut self, escapes: bool) {
        self.ends
            .push(u32::try_from(self.steps.len()).expect("a chunk holds fewer than 2^32 steps"));
        self.escapes.push(escapes);
    }

    fn node(&self, local: usize) -> DrawNode<'_> {
        let start = if local == 0 { 0 } else { self.ends[local - 1] as usize };
        DrawNode {
            escapes: self.escapes[local],
            steps: &self.steps[start..self.ends[local] as usize],
            chases: &self.chases,
        }
    }

    fn bytes(&self) -> usize {
        self.ends.len() * (size_of::<u32>() + size_of::<bool>())
            + self.steps.len() * size_of::<Step>()
            + self.chases.len() * size_of::<u128>()
    }
}

/// A drawn position: whether a capture into a drawn smaller ending escapes, and its drawing
/// in-table moves.
#[derive(Clone, Copy)]
struct DrawNode<'a> {
    escapes: bool,
    steps: &'a [Step],
    /// The chases of the position's chunk, which its steps point into.
    chases: &'a [u128],
}

impl DrawNode<'_> {
    /// The squares a step of this position chases.
    fn chases(&self, step: &Step) -> u128 {
        if step.chase == NO_CHASE {
            0
        } else {
            self.chases[step.chase as usize]
        }
    }
}

/// The drawn positions of a round ("nodes", numbered in the order of their states) and their
/// drawing moves.
struct Draws {
    states: Vec<u64>,
    chunks: Vec<Chunk>,
}

impl Draws {
    /// Finds the drawn positions of `entries` and their drawing moves, after checking that the
    /// memory their graph needs (estimated from a sample of them) is there.
    fn find(space: &XiangqiSpace, index: &XiangqiIndex, entries: &[Entry]) -> Result<Draws> {
        check_draws(
            &index.material,
            entries.par_iter().filter(|&&e| e == DRAW).count() as u64,
        )?;
        let drawn = NodeNumbers::of(entries, |e| e == DRAW);
        let states: Vec<u64> = entries
            .par_iter()
            .enumerate()
            .filter(|&(_, &e)| e == DRAW)
            .map(|(state, _)| state as u64)
            .collect();
        memory::ensure_available(
            Draws::estimate_chunk_bytes(space, index, &drawn, &states) + Draws::bytes_beside(states.len()),
            &format!(
                "the Asian rulings of {} (a graph of its {} drawn positions)",
                index.material,
                states.len()
            ),
        )?;
        let chunks = states
            .par_chunks(CHUNK)
            .map(|states| Chunk::build(space, index, &drawn, states))
            .collect();
        Ok(Draws { states, chunks })
    }

    /// The bytes of the chunks of the drawn `states`, estimated from [`SAMPLE`] of them.
    fn estimate_chunk_bytes(space: &XiangqiSpace, index: &XiangqiIndex, drawn: &NodeNumbers, states: &[u64]) -> u64 {
        let sample: Vec<u64> = states.iter().step_by(states.len() / SAMPLE + 1).copied().collect();
        let per_node = Chunk::build(space, index, drawn, &sample).bytes() as f64 / sample.len().max(1) as f64;
        (per_node * states.len() as f64) as u64
    }

    /// The bytes that `nodes` drawn positions take beside the graph: their states, and the
    /// marks of a round.
    fn bytes_beside(nodes: usize) -> u64 {
        ((size_of::<u64>() + ROUND_BYTES_PER_NODE) * nodes) as u64
    }

    fn len(&self) -> usize {
        self.states.len()
    }

    fn node(&self, node: u32) -> DrawNode<'_> {
        let node = node as usize;
        self.chunks[node / CHUNK].node(node % CHUNK)
    }

    /// The nodes in order, in parallel.
    fn nodes(&self) -> impl IndexedParallelIterator<Item = DrawNode<'_>> {
        (0..self.len() as u32).into_par_iter().map(|node| self.node(node))
    }
}

/// The graph of drawn positions and a round's marks allowed for, per state of the table, in the
/// peaks a plan shows ([`crate::plan`]): the most measured among the tables of up to 5 pieces,
/// KCvKC's 124 bytes a state, rounded up (KCPvKC's graph is the largest, 4.3 GiB, 97 a state;
/// KRCvKR's 44). Generation checks the graph's own estimate when the first round builds it.
pub const GRAPH_BYTES_PER_STATE: u64 = 128;

/// Fails unless the drawn positions of `material` can be numbered in 32 bits, as the rounds'
/// graph numbers them.
fn check_draws(material: &Material, draws: u64) -> Result<()> {
    if draws >= u64::from(u32::MAX) {
        bail!(
            "the Asian rulings of {material} number its drawn positions in 32 bits, and it has {}; use --rules draw",
            counted(draws, "drawn position")
        );
    }
    Ok(())
}

/// Drawn positions whose moves [`Draws::find`] lists to estimate the graph's memory.
const SAMPLE: usize = 2048;
/// Bytes a round needs per node beside the graph: the live flags, the check marks and two
/// generations of chase marks.
const ROUND_BYTES_PER_NODE: usize = 2 * size_of::<bool>() + 2 * size_of::<u128>();

/// The node numbers of the states with a property: a state's number is how many states before
/// it have the property (a bit per state and a count per 64), in 0.19 bytes a state instead of a
/// 4-byte number per state.
struct NodeNumbers {
    bits: Vec<u64>,
    before: Vec<u32>,
}

impl NodeNumbers {
    fn of(entries: &[Entry], has: impl Fn(Entry) -> bool + Sync) -> NodeNumbers {
        let bits: Vec<u64> = entries
            .par_chunks(64)
            .map(|word| word.iter().enumerate().fold(0, |w, (i, &e)| w | u64::from(has(e)) << i))
            .collect();
        let before = bits
            .iter()
            .scan(0u32, |count, w| {
                let here = *count;
                *count += w.count_ones();
                Some(here)
            })
            .collect();
        NodeNumbers { bits, before }
    }

    /// The node number of `state`, `None` if it lacks the property.
    fn node(&self, state: u64) -> Option<u32> {
        let (word, bit) = ((state / 64) as usize, state % 64);
        let w = self.bits[word];
        (w >> bit & 1 == 1).then(|| self.before[word] + (w & ((1 << bit) - 1)).count_ones())
    }
}

/// Lists the drawing moves of the drawn `state` into `chunk`.
fn push_draw_node(space: &XiangqiSpace, index: &XiangqiIndex, drawn: &NodeNumbers, state: u64, chunk: &mut Chunk) {
    let mut decoded = index.decode_state(state).expect("a drawn state is legal");
    let mover = decoded.side_to_move;
    let layout = &index.layout;
    let child_base = (1 - mover) as u64 * index.per_side;
    let before = reach(&mut decoded.board, mover);
    let start = decoded.board.squares;
    let mut escapes = false;
    for_each_legal_move(&mut decoded.board, mover, |board, piece, victim| {
        if victim != NONE {
            escapes |= space.exit_value(board, usize::from(victim), 1 - mover) == Value::Draw;
            return;
        }
        let (child, mirrored) = layout.slot_after(&decoded.digits, &board.squares, piece);
        let Some(child) = drawn.node(child_base + child) else {
            return;
        };
        let threats = threats(&mut board.clone(), mover, &before);
        chunk.push_step(
            child,
            mirrored,
            threats.check,
            start[piece],
            board.squares[piece],
            threats.chases,
        );
    });
    chunk.end_node(escapes);
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
    /// The rounds of `space`'s material, before the first.
    pub fn new(space: &'a XiangqiSpace<'a>, index: &'a XiangqiIndex) -> Rounds<'a> {
        Rounds {
            space,
            index,
            draws: None,
        }
    }

    /// One round: the drawn states (under `entries`) that the rules rule lost, with the reason;
    /// an error when the graph of the draws does not fit in memory.
    pub fn rulings(&mut self, entries: &[Entry]) -> Result<Vec<(u64, Reason)>> {
        if self.draws.is_none() {
            self.draws = Some(Draws::find(self.space, self.index, entries)?);
        }
        let draws = self.draws.as_ref().expect("found above");
        let live: Vec<bool> = draws.states.par_iter().map(|&s| entries[s as usize] == DRAW).collect();
        Ok(rule(draws, &live))
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
fn live_steps<'d>(node: &DrawNode<'d>, live: &'d [bool]) -> impl Iterator<Item = &'d Step> {
    node.steps.iter().filter(|s| live[s.child as usize])
}

/// Whether the mover of a live node may be in a perpetual: no escape and at least one drawing
/// move, all of them of the kind `all` accepts.
fn candidate(node: &DrawNode, live: &[bool], all: impl Fn(&Step) -> bool) -> bool {
    !node.escapes && live_steps(node, live).next().is_some() && live_steps(node, live).all(all)
}

/// Whether the mover of a live node starts as a perpetual checker: every drawing move checks.
fn check_candidate(node: &DrawNode, live: &[bool]) -> bool {
    candidate(node, live, Step::check)
}

/// The squares of the pieces that the mover of a live node starts as chasing perpetually: those
/// that every drawing move chases, none of them a check.
fn chase_candidates(node: &DrawNode, live: &[bool]) -> u128 {
    if candidate(node, live, |s| !s.check()) {
        live_steps(node, live).fold(!0, |m, s| m & node.chases(s))
    } else {
        0
    }
}

/// Per drawn state of `entries`: the state, whether its mover starts as a perpetual checker, and
/// the squares it starts as chasing (the first pass of a round, which the GPU twin is held to).
#[cfg(test)]
pub(crate) fn candidates(space: &XiangqiSpace, index: &XiangqiIndex, entries: &[Entry]) -> Vec<(u64, bool, u128)> {
    let draws = Draws::find(space, index, entries).expect("the graph of a test's draws fits in memory");
    let live = vec![true; draws.len()];
    let marks: Vec<(bool, u128)> = draws
        .nodes()
        .map(|node| (check_candidate(&node, &live), chase_candidates(&node, &live)))
        .collect();
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
        .nodes()
        .zip(live)
        .map(|(node, &live_node)| live_node && check_candidate(&node, live))
        .collect();
    loop {
        let next: Vec<bool> = draws
            .nodes()
            .enumerate()
            .map(|(i, node)| {
                marked[i]
                    && live_steps(&node, live).all(|step| {
                        live_steps(&draws.node(step.child), live)
                            .any(|answer| !answer.check() && marked[answer.child as usize])
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
        .nodes()
        .zip(live)
        .map(|(node, &live_node)| if live_node { chase_candidates(&node, live) } else { 0 })
        .collect();
    loop {
        let next: Vec<u128> = draws
            .nodes()
            .enumerate()
            .map(|(i, node)| {
                let mut kept = 0u128;
                let mut targets = marked[i];
                while targets != 0 {
                    let target = targets.trailing_zeros() as u8;
                    targets &= targets - 1;
                    let keeps = live_steps(&node, live).all(|step| {
                        let at_child = map(target, step.mirrored());
                        live_steps(&draws.node(step.child), live).any(|answer| {
                            let moved = if answer.from == at_child { answer.to } else { at_child };
                            let next = map(moved, answer.mirrored());
                            answer.quiet() && marked[answer.child as usize] >> next & 1 == 1
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
    use super::super::Xiangqi;
    use super::super::notation::{moves_named, parse_fen};
    use super::*;
    use crate::games::{Game, IndexSpace};
    use crate::generate::Generator;
    use crate::material::GameId;
    use crate::solver::Silent;

    /// What the move `mv` (ICCS) of the side to move in `fen` is under the rules.
    fn threats_of(fen: &str, mv: &str) -> Threats {
        let position = parse_fen(fen).unwrap().0;
        let [mv] = moves_named(&position, mv)[..] else {
            panic!("{mv}: not one move")
        };
        let mover = position.side_to_move.index();
        position.with_board(|board| {
            let before = reach(board, mover);
            let piece = (0..board.layout.pieces).find(|&s| board.squares[s] == mv.from).unwrap();
            board.make(piece, mv.to);
            threats(board, mover, &before)
        })
    }

    #[test]
    fn a_table_with_2_to_the_32_draws_is_refused_in_one_line() {
        let material = Material::parse(GameId::Xiangqi, "KRCvKRC").unwrap();
        assert!(check_draws(&material, u64::from(u32::MAX) - 1).is_ok());
        let error = check_draws(&material, u64::from(u32::MAX)).unwrap_err().to_string();
        assert!(
            error.starts_with("the Asian rulings of KRCvKRC number its drawn positions in 32 bits"),
            "{error}"
        );
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
    struct TestStep {
        child: u32,
        check: bool,
        chase: Option<u8>,
        from: u8,
        to: u8,
    }

    fn step(child: u32, check: bool, chase: Option<u8>, from: u8, to: u8) -> TestStep {
        TestStep {
            child,
            check,
            chase,
            from,
            to,
        }
    }

    /// The rulings of a synthetic draw graph (node i is state 100 + i, all in one chunk), all
    /// nodes live but those listed as dead.
    fn rule_graph(nodes: Vec<(bool, Vec<TestStep>)>, dead: &[usize]) -> Vec<(u64, Reason)> {
        let n = nodes.len();
        let mut chunk = Chunk::default();
        for (escapes, steps) in nodes {
            for s in steps {
                let chases = s.chase.map_or(0, |q| 1u128 << q);
                chunk.push_step(s.child, false, s.check, s.from, s.to, chases);
            }
            chunk.end_node(escapes);
        }
        let draws = Draws {
            states: (0..n as u64).map(|i| 100 + i).collect(),
            chunks: vec![chunk],
        };
        let live: Vec<bool> = (0..n).map(|i| !dead.contains(&i)).collect();
        rule(&draws, &live)
    }

    #[test]
    fn the_graph_memory_estimate_is_close_to_the_graph_built() {
        let dir = std::env::temp_dir().join(format!("egtb-asian-estimate-{}", std::process::id()));
        let mut generator = Generator::<Xiangqi>::new(&dir, Default::default(), &Silent);
        // The drawiest table measured: its graph takes the most bytes a state.
        let material = Material::parse(GameId::Xiangqi, "KCvKC").unwrap();
        let entries = generator.ensure(&material).unwrap().entries().to_vec();
        let index = Xiangqi::index(&material, Default::default()).unwrap();
        let space = XiangqiSpace::new(&index, generator.tables()).unwrap();
        let draws = Draws::find(&space, &index, &entries).unwrap();
        assert!(draws.len() > 10 * SAMPLE, "a graph larger than the sample");
        let drawn = NodeNumbers::of(&entries, |e| e == DRAW);
        let estimate = Draws::estimate_chunk_bytes(&space, &index, &drawn, &draws.states) as f64;
        let built: usize = draws.chunks.iter().map(Chunk::bytes).sum();
        let ratio = estimate / built as f64;
        assert!((0.9..1.1).contains(&ratio), "estimate {estimate} against {built} bytes");
        // Its graph and a round's marks stay within the allowance of plans.
        let held = built as u64 + Draws::bytes_beside(draws.len());
        let allowed = GRAPH_BYTES_PER_STATE * index.states();
        assert!(held <= allowed, "{held} bytes held against {allowed} allowed");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn node_numbers_count_the_states_with_the_property_in_order() {
        let entries: Vec<Entry> = (0..1000u32).map(|i| (i * 7919 % 13 == 0) as Entry).collect();
        let numbers = NodeNumbers::of(&entries, |e| e == 1);
        let mut next = 0;
        for (state, &e) in entries.iter().enumerate() {
            if e == 1 {
                assert_eq!(numbers.node(state as u64), Some(next), "state {state}");
                next += 1;
            } else {
                assert_eq!(numbers.node(state as u64), None, "state {state}");
            }
        }
        assert!(next > 64, "the property spans several words");
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
