//! Training data made by Tabula itself: positions from noisy self-play where the net and a
//! deeper look disagree, labelled by that deeper look (issue 16).
//!
//! **Positions.** Games of 0-ply self-play in which every play's equity gets uniform noise of
//! amplitude [`LabelOptions::noise`] before the best is taken (so that games leave the net's
//! favourite lines). Each position before a roll, unless the game is over or the attached
//! bear-off database values it exactly, is evaluated at 0 plies (the net) and at
//! [`LabelOptions::plies`] plies (the expectimax of [`crate::search`]); it is kept when the two
//! cubeless equities differ by at least [`LabelOptions::keep`]. With [`LabelOptions::only`] a
//! class, only the positions of that class are looked at (the games are the same; the labels
//! are that class's subset of the full run's, plus, for races, the exact bear-offs labelled by
//! the database). With [`LabelOptions::min_gammons`] only the positions whose 0-ply gammon
//! rate reaches it are looked at (the gammonish ones, where the cube's take/pass errors are).
//!
//! **Chunks.** Games are made in chunks of [`LabelOptions::games_per_chunk`]; chunk `c` draws
//! its dice and noise from its own generator, seeded from `(seed, c)` alone, so a chunk's labels
//! do not depend on which thread made it or on the chunks before it, and the search is
//! bit-identical for any thread count: a run is reproducible per seed whatever `--threads`, and
//! resuming at a chunk boundary continues exactly the run that was interrupted.
//!
//! **File.** A text file, so that it can be inspected and concatenated with tools:
//!
//! ```text
//! # tabula-labels 1
//! # plies 2 noise 0.05 keep 0 games-per-chunk 10 seed 1 evaluator 9f…e1
//! <Position ID> <5 deep probabilities> <5 net probabilities>
//! …
//! # chunk 0 records 181 fnv 0123456789abcdef
//! ```
//!
//! With [`LabelOptions::siblings`] the file starts `# tabula-labels 2` and each record ends
//! with ` d<N>`: the number, within its chunk, of the self-play decision whose result it is
//! (the play made and its siblings share it), so that a fit can compare the results of one
//! roll ([`Label::decision`]). Files without siblings are written as before, byte for byte.
//!
//! A chunk's records are followed by a marker with their count and the FNV-1a hash of their
//! bytes. [`LabelFile::read`] checks every marker, so a damaged or edited file is refused; a
//! tail without its marker (the run was interrupted while writing) is reported as such, and
//! [`LabelFile::read`] hands back the length of the valid prefix for a resume to truncate to.

use std::fmt::Write as _;

use tabula_engine::backgammon::{PlayList, Position};

use crate::baseline::{opening_roll, roll, MAX_PLIES};
use crate::inputs::Inputs;
use crate::net::{consistent, equity, Evaluator, Net, NetClass, Probabilities, OUTPUTS};
use crate::rng::Rng;
use crate::rollout::{Rollout, RolloutOptions};
use crate::search::{SearchOptions, Searcher};
use NetClass::{Contact, Crashed, Race};

/// The first line of a label file.
pub const MAGIC: &str = "# tabula-labels 1";

/// The first line of a label file whose records name their decision ([`Label::decision`]).
pub const MAGIC_DECISIONS: &str = "# tabula-labels 2";

/// How labels are made.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LabelOptions {
    /// Depth of the labelling search (1 to [`crate::search::MAX_PLIES`]).
    pub plies: u8,
    /// Amplitude of the uniform noise added to each play's 0-ply equity in self-play.
    pub noise: f32,
    /// Keep a position when its deep and 0-ply equities differ by at least this.
    pub keep: f32,
    /// Self-play games per chunk.
    pub games_per_chunk: u32,
    /// Seed of the run.
    pub seed: u64,
    /// Label by a rollout of this many trials instead of the search (0: the search labels):
    /// players of [`LabelOptions::rollout_plies`] to the end of the game, luck-corrected, first
    /// rolls stratified, cubeless. The search still chooses which positions to keep (with
    /// [`LabelOptions::keep`] 0 it is not run). With siblings, the positions of one decision
    /// share their dice (common random numbers), so that their differences are less noisy.
    pub rollout_trials: u32,
    /// The rollout players' search depth, 0 (the net alone) to [`crate::search::MAX_PLIES`]
    /// ([`RolloutOptions::plies`]). Deeper players misjudge less
    /// where the net itself is wrong: a rollout by 0-ply players carries the net's own errors
    /// into its labels.
    pub rollout_plies: u8,
    /// Look only at the positions of this class ([`NetClass::of`]): training data for that
    /// class's net alone, from the same games. For races, the bear-offs the attached database
    /// values exactly are kept too, labelled by it (their `net` is the race net's own value),
    /// so that a race net fitted on them stays right where no database is attached.
    pub only: Option<NetClass>,
    /// Where the positions come from.
    pub source: Source,
    /// Keep a position only when the net's gammon rate (gammons won plus lost, 0 plies) is at
    /// least this: the gammonish positions, where the cube judges found the net's take/pass
    /// errors (0: no such filter). Checked before the deep look, so a run spends its search
    /// and rollouts on those positions alone.
    pub min_gammons: f32,
    /// In self-play, also consider the positions after the plays the net (0 plies, no noise)
    /// ranks best at each decision, up to this many besides the one played (0: none). A
    /// play's choice turns on how these near-equal positions compare, and a game's own path
    /// shows only one of them; labelled side by side, they teach the net the differences the
    /// judges count. Each goes through the same filters as a position of the path.
    pub siblings: u8,
    /// Look only at the leader's turns of holding games ([`is_holding_lead`]) with a race
    /// lead of at least this many pips (`None`: no such filter). The judges found the nets'
    /// largest contact errors in the trailing side's choices there, each of which the net
    /// makes by valuing positions of this kind (stop 55).
    pub holding_lead: Option<u32>,
}

/// Whether `pos` is the leader's turn of a holding game, `lead` pips or more ahead: a contact
/// position that is not crashed ([`NetClass::Contact`]) where the side on roll has no checker
/// back (none on the bar or on the other side's home board) and leads the race by at least
/// `lead` pips. The other side, still in contact, holds back what it can: an anchor, a
/// point or checkers in the leader's path.
pub fn is_holding_lead(pos: &Position, lead: u32) -> bool {
    use tabula_engine::backgammon::Side;
    pos.back(Side::OnRoll) <= 18
        && pos.pips(Side::Opponent) >= pos.pips(Side::OnRoll) + lead
        && NetClass::of(pos) == Contact
}

/// Where a run's positions come from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Source {
    /// Noisy 0-ply self-play from the opening position (a chunk is
    /// [`LabelOptions::games_per_chunk`] games).
    #[default]
    SelfPlay,
    /// Drawn positions of a late hit ([`late_hit`]): a chunk is
    /// [`LabelOptions::games_per_chunk`] positions, each labelled on its own. Self-play almost
    /// never reaches them, and the nets valued them far too well for the side that was hit.
    LateHit,
    /// Drawn positions of a side with 2 or 3 checkers back ([`back_checkers`]), the next blind
    /// spot the duels showed after the late hits: a chunk is [`LabelOptions::games_per_chunk`]
    /// positions, each labelled on its own.
    BackCheckers,
    /// Drawn positions of a side with 1 to 3 checkers back against a side that still has
    /// nearly all its checkers in play ([`back_in_play`]): the sub-kind the replays of the
    /// back-checkers round's duel found.
    BackInPlay,
    /// Drawn back games ([`back_game`]): a side holding two points deep in the other side's
    /// home board with all its checkers still in play, the positions where the cube
    /// judges found the nets overrating the attacker most (stop 46).
    BackGame,
}

impl Source {
    /// Every source.
    pub const ALL: [Source; 5] = [
        Source::SelfPlay,
        Source::LateHit,
        Source::BackCheckers,
        Source::BackInPlay,
        Source::BackGame,
    ];

    /// The name used on the command line and in label files.
    pub fn name(self) -> &'static str {
        match self {
            Source::SelfPlay => "self-play",
            Source::LateHit => "late-hit",
            Source::BackCheckers => "back-checkers",
            Source::BackInPlay => "back-in-play",
            Source::BackGame => "back-game",
        }
    }

    /// A drawn position of this source, or `None` for self-play (whose positions come from
    /// games).
    pub fn draw(self, rng: &mut Rng) -> Option<Position> {
        match self {
            Source::SelfPlay => None,
            Source::LateHit => Some(late_hit(rng)),
            Source::BackCheckers => Some(back_checkers(rng)),
            Source::BackInPlay => Some(back_in_play(rng)),
            Source::BackGame => Some(back_game(rng)),
        }
    }

    /// Whether this source's positions can be of `class`: self-play reaches every class, the
    /// late hits and the sides with checkers back are crashed, back games are in contact
    /// (crashed now and then). A run that keeps only a class its source never draws keeps
    /// nothing.
    pub fn draws(self, class: NetClass) -> bool {
        match self {
            Source::SelfPlay => true,
            Source::LateHit | Source::BackCheckers | Source::BackInPlay => class == Crashed,
            Source::BackGame => class != Race,
        }
    }

    /// What the source draws, in words ([`Source::draws`]).
    pub fn drawn(self) -> &'static str {
        match self {
            Source::SelfPlay => "positions of every class",
            Source::LateHit | Source::BackCheckers | Source::BackInPlay => "crashed positions",
            Source::BackGame => "positions in contact",
        }
    }

    /// The source of that [`name`](Source::name).
    pub fn from_name(name: &str) -> Option<Source> {
        Source::ALL.into_iter().find(|s| s.name() == name)
    }
}

/// A drawn late-hit position: one side (on roll or not, at random) has 1 to 5 checkers left,
/// one of them on the bar (three times in four) or trapped on a point of the other side's home
/// board, the rest on its own home board; the other side has 2 to 6 points of its home board
/// made (2 or 3 checkers each) and 0 to 5 checkers elsewhere, the rest off. Drawn again until
/// legal (no point shared, at most 15 checkers a side) and contact (a trapped checker can be
/// past every checker of the other side); the hit side is then crashed.
pub fn late_hit(rng: &mut Rng) -> Position {
    loop {
        let (mut hit, mut other) = ([0u8; 25], [0u8; 25]);
        let left = 1 + rng.below(5) as usize;
        if rng.below(4) < 3 {
            hit[24] = 1;
        } else {
            // The hit side's 19- to 24-points are the other side's home board.
            hit[18 + rng.below(6) as usize] = 1;
        }
        for _ in 1..left {
            hit[rng.below(6) as usize] += 1;
        }
        let made = 2 + rng.below(5);
        make_points(rng, &mut other, made);
        for _ in 0..rng.below(6) {
            other[6 + rng.below(18) as usize] += 1;
        }
        if total(&other) > 15 {
            continue;
        }
        // A trapped checker beyond every checker of the other side: a race, not a hit.
        if let Some(pos) = settle(rng, hit, other) {
            return pos;
        }
    }
}

/// A drawn position of a side with checkers back: one side (on roll or not, at random) has 2
/// or 3 checkers back, each on the bar (one time in four) or on a point of the other side's
/// home board (the second on the first's point one time in three: an anchor), and 0 to 4 on
/// its own home board, at most 6 left in all (so it is crashed); the other side has 2 to 6
/// points of its home board made (2 or 3 checkers each), a blot on another home point one time
/// in two, and 0 to 5 checkers elsewhere, the rest off. Drawn again until legal and contact.
/// The duels' replays showed the nets valuing such positions far too well for the side with
/// checkers back (`bJvAQQwGAAAFAA`: net 0.70 to win, Tabula's rollout 0.50).
pub fn back_checkers(rng: &mut Rng) -> Position {
    loop {
        let behind = 2 + rng.below(2) as usize;
        let back = back_side(rng, behind);
        let mut other = [0u8; 25];
        let made = 2 + rng.below(5);
        let (free, _) = make_points(rng, &mut other, made);
        if !free.is_empty() && rng.below(2) == 0 {
            other[free[rng.below(free.len() as u64) as usize]] = 1;
        }
        for _ in 0..rng.below(6) {
            other[6 + rng.below(18) as usize] += 1;
        }
        if total(&other) > 15 {
            continue;
        }
        if let Some(pos) = settle(rng, back, other) {
            return pos;
        }
    }
}

/// A drawn position of a side with checkers back against a side still in play: one side (on
/// roll or not, at random) has 1 to 3 checkers back (each on the bar one time in four, else on
/// a point of the other side's home board, the second on the first's point one time in
/// three) and 0 to 4 on its own home board, at most 6 left in all; the other side has 0 to 3
/// checkers off and the rest in play: 2 to 5 made home points (2 or 3 checkers each), the
/// others each on its home board (two in five), its outfield (two in five) or back on the
/// first side's home board (one in five). Drawn again until legal and contact. The replays
/// of a duel found the nets and the 0-ply rollouts valuing these far too well for the side
/// with checkers back (`MzsASwkGAMAAAA`: net +0.49, 0-ply rollout +0.16, 1-ply rollout
/// +0.00, gnubg −0.09).
pub fn back_in_play(rng: &mut Rng) -> Position {
    loop {
        let behind = 1 + rng.below(3) as usize;
        let back = back_side(rng, behind);
        let mut other = [0u8; 25];
        let in_play = 15 - rng.below(4) as u8;
        let made = 2 + rng.below(4);
        let (_, placed) = make_points(rng, &mut other, made);
        // The other side's 19- to 24-points are the first side's home board.
        scatter(
            rng,
            &mut other,
            in_play.saturating_sub(placed),
            [(0, 6), (6, 12), (18, 6)],
        );
        if placed > in_play {
            continue;
        }
        if let Some(pos) = settle(rng, back, other) {
            return pos;
        }
    }
}

/// A drawn back game. The defender (on roll or not, at random) holds two points of the other
/// side's home board (its own 19- to 24-points), 2 or 3 checkers each, the first on the other
/// side's 1-, 2- or 3-point; one time in three a third checker back (on the bar, or on one of
/// those six points); the rest of its 15 in play, each on its own home board (two in five) or
/// its outfield. The attacker has 0 to 3 checkers off, 2 to 4 points of its home board made
/// (2 or 3 checkers each, among the points the defender does not hold) and the rest each on
/// its home board (two in five), its 7- to 12-points (two in five) or its 13- to 18-points.
/// Drawn again until legal (no point shared). Self-play hardly reaches these, and the cube
/// judges found the nets overrating the attacker there most: `0HMAwDvc3ZYAAA`, an ace-deuce
/// back game, net 0.733 to win at 2 plies, Tabula's own 0-ply rollout 0.638, gnubg 2-ply 0.578.
pub fn back_game(rng: &mut Rng) -> Position {
    loop {
        let mut defender = [0u8; 25];
        // The defender's 22- to 24-points are the attacker's 3- to 1-points.
        let first = 21 + rng.below(3) as usize;
        let second = loop {
            let p = 18 + rng.below(6) as usize;
            if p != first {
                break p;
            }
        };
        defender[first] = 2 + rng.below(2) as u8;
        defender[second] = 2 + rng.below(2) as u8;
        if rng.below(3) == 0 {
            let p = if rng.below(4) == 0 {
                24
            } else {
                18 + rng.below(6) as usize
            };
            defender[p] += 1;
        }
        let rest = 15 - total(&defender) as u8;
        scatter(rng, &mut defender, rest, [(0, 6), (6, 12), (6, 12)]);
        let mut attacker = [0u8; 25];
        let in_play = 15 - rng.below(4) as u8;
        // The home points the defender does not hold (the attacker's point p is the
        // defender's 23 − p).
        let free = (0..6).filter(|&p| defender[23 - p] == 0).collect();
        let made = 2 + rng.below(3);
        let (_, placed) = make_points_among(rng, &mut attacker, made, free);
        if placed > in_play {
            continue;
        }
        scatter(
            rng,
            &mut attacker,
            in_play - placed,
            [(0, 6), (6, 6), (12, 6)],
        );
        if let Some(pos) = settle(rng, defender, attacker) {
            return pos;
        }
    }
}

/// The side with checkers back of [`back_checkers`] and [`back_in_play`]: `behind` checkers
/// each on the bar (one time in four) or on a point of the other side's home board (the
/// second on the first's point one time in three: an anchor), and 0 to 4 on its own home
/// board, at most 6 in all.
fn back_side(rng: &mut Rng, behind: usize) -> [u8; 25] {
    let mut back = [0u8; 25];
    let mut first = None;
    for i in 0..behind {
        let point = match first {
            Some(p) if i == 1 && rng.below(3) == 0 => p,
            _ if rng.below(4) == 0 => 24,
            // The back side's 19- to 24-points are the other side's home board.
            _ => 18 + rng.below(6) as usize,
        };
        first.get_or_insert(point);
        back[point] += 1;
    }
    for _ in 0..rng.below(5).min(6 - behind as u64) {
        back[rng.below(6) as usize] += 1;
    }
    back
}

/// Makes `made` points of `side`'s home board, 2 or 3 checkers each; the home points left
/// free and the checkers placed.
fn make_points(rng: &mut Rng, side: &mut [u8; 25], made: u64) -> (Vec<usize>, u8) {
    make_points_among(rng, side, made, (0..6).collect())
}

/// [`make_points`] among the home points `free` only (fewer where they run out).
fn make_points_among(
    rng: &mut Rng,
    side: &mut [u8; 25],
    made: u64,
    mut free: Vec<usize>,
) -> (Vec<usize>, u8) {
    let mut placed = 0;
    for _ in 0..made {
        if free.is_empty() {
            break;
        }
        let i = rng.below(free.len() as u64) as usize;
        let n = 2 + rng.below(2) as u8;
        side[free.swap_remove(i)] = n;
        placed += n;
    }
    (free, placed)
}

/// Puts `count` more checkers on `side`, each on a point drawn from one of three spans
/// (start, length): the first two in two draws of five each, the third in one.
fn scatter(rng: &mut Rng, side: &mut [u8; 25], count: u8, spans: [(u64, u64); 3]) {
    for _ in 0..count {
        let (start, len) = match rng.below(5) {
            0 | 1 => spans[0],
            2 | 3 => spans[1],
            _ => spans[2],
        };
        side[(start + rng.below(len)) as usize] += 1;
    }
}

fn total(side: &[u8; 25]) -> u32 {
    side.iter().map(|&c| u32::from(c)).sum()
}

/// The drawn position of `first` and `other` (each counted from its own side), the player on
/// roll drawn at random; `None` (draw again) where they share a point or are not in contact.
fn settle(rng: &mut Rng, first: [u8; 25], other: [u8; 25]) -> Option<Position> {
    if (0..24).any(|p| first[p] > 0 && other[23 - p] > 0) {
        return None;
    }
    let pair = if rng.below(2) == 0 {
        (first, other)
    } else {
        (other, first)
    };
    Position::from_counts(pair.0, pair.1)
        .ok()
        .filter(crate::inputs::is_contact)
}

impl LabelOptions {
    /// Whether the labelling search runs: it labels, or it picks the positions a rollout
    /// labels ([`LabelOptions::keep`] above 0); with rollouts and nothing to pick it does not.
    pub fn searches(&self) -> bool {
        self.rollout_trials == 0 || self.keep > 0.0
    }
}

impl Default for LabelOptions {
    fn default() -> Self {
        LabelOptions {
            plies: 2,
            noise: 0.05,
            keep: 0.0,
            games_per_chunk: 10,
            seed: 1,
            rollout_trials: 0,
            rollout_plies: 0,
            only: None,
            source: Source::SelfPlay,
            min_gammons: 0.0,
            siblings: 0,
            holding_lead: None,
        }
    }
}

/// One labelled position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Label {
    /// The position, player on roll, before the roll.
    pub position: Position,
    /// The deep evaluation (the label).
    pub deep: Probabilities,
    /// The net's evaluation when the label was made.
    pub net: Probabilities,
    /// In a run with [`LabelOptions::siblings`], the number (within its chunk) of the
    /// self-play decision whose result this position is: the play made and the siblings
    /// labelled beside it share it, so their labels can be compared as the choices of one roll.
    /// A position no decision led to (a game's start, the turn after a roll without a play)
    /// has a number of its own. `None` in runs without siblings.
    pub decision: Option<u32>,
}

/// A fingerprint of an evaluator's weights, whether exact bear-offs are attached and its
/// pruning net: labels made with another evaluator are not the same run.
pub fn fingerprint(eval: &Evaluator) -> u64 {
    let mut h = Fnv::new();
    // A crashed net of its own is hashed after the others, so that weights without one keep
    // the fingerprint they had before there were crashed nets.
    for net in [&eval.contact, &eval.race].into_iter().chain(&eval.crashed) {
        hash_net(&mut h, net);
    }
    // 2: the exact values cover the few-checker races too (1 meant bear-offs only, whose
    // labels valued those races by the net).
    h.bytes(&[if eval.bearoff.is_some() { 2 } else { 0 }]);
    // A race database values more races exactly: hashed only when attached, so that every
    // fingerprint made without one stays what it was.
    // A deferred database is opened here: whether it opens decides the labels.
    if let Some(race) = eval.bearoff.as_ref().and_then(|b| b.race.as_ref()?.get()) {
        h.bytes(&[3, race.points() as u8]);
    }
    // The pruning net picks the plays a search's last ply values in full, so labels made with
    // it and without it (`--no-prune`) differ: hashed when attached (the shipped weights'),
    // which made every fingerprint of a run with it new in stop 66.
    if let Some(pruner) = &eval.pruner {
        h.bytes(&[4]);
        h.bytes(&pruner.encode());
    }
    h.0
}

fn hash_net(h: &mut Fnv, net: &Net) {
    h.bytes(&(net.hidden as u64).to_le_bytes());
    for v in net.w1.iter().chain(&net.b1).chain(&net.w2).chain(&net.b2) {
        h.bytes(&v.to_le_bytes());
    }
}

/// The generator of chunk `chunk` of a run seeded `seed` (SplitMix64 of both).
fn chunk_rng(seed: u64, chunk: u64) -> Rng {
    let mut z = seed ^ chunk.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    Rng::new(z ^ (z >> 31))
}

/// The seed of the rollout that labels the `index`-th label of chunk `chunk`: the label's own
/// (by its index) on a game's path alone, the decision's (by its number) when siblings are
/// labelled, so that the play made and its siblings are rolled out on the same dice.
fn rollout_seed(seed: u64, chunk: u64, decision: Option<u32>, index: usize) -> u64 {
    let key = decision.map_or(index as u64, |d| u64::from(d) | 1 << 31);
    chunk_rng(!seed, chunk ^ (key << 32)).state()
}

/// Plays chunk `chunk` of a run (or draws its positions) and returns its labels, in the
/// order met.
pub fn label_chunk(eval: &Evaluator, options: &LabelOptions, chunk: u64) -> Vec<Label> {
    let mut rng = chunk_rng(options.seed, chunk);
    let searcher = Searcher::new(
        eval,
        SearchOptions {
            plies: options.plies,
            ..SearchOptions::default()
        },
    );
    let mut out = Vec::new();
    // Whether the net's view of a position passes the gammon filter.
    let gammonish = |net: &Probabilities| net[1] + net[3] >= options.min_gammons;
    // Labels `pos` into `out` when the run wants it.
    let consider = |pos: &Position, decision: Option<u32>, out: &mut Vec<Label>| {
        let exact = eval.bearoff.as_ref().and_then(|t| t.probabilities(pos));
        if let (Some(deep), Some(Race)) = (exact, options.only) {
            // A race the databases value exactly (a bear-off, or a side down to its last
            // few checkers): labelled by that value, so that the race net also stays right
            // where no database is attached.
            let net = consistent(pos, eval.race.forward(&Inputs::new(pos)), true);
            if gammonish(&net) && (equity(&deep) - equity(&net)).abs() >= options.keep {
                out.push(Label {
                    position: *pos,
                    deep,
                    net,
                    decision,
                });
            }
        }
        let wanted = exact.is_none()
            && options.only.is_none_or(|class| NetClass::of(pos) == class)
            && options
                .holding_lead
                .is_none_or(|lead| is_holding_lead(pos, lead));
        if wanted {
            let net = eval.evaluate(pos);
            if !gammonish(&net) {
                return;
            }
            let searched = options
                .searches()
                .then(|| searcher.evaluate(pos, options.plies));
            let kept =
                searched.is_none_or(|deep| (equity(&deep) - equity(&net)).abs() >= options.keep);
            if kept {
                let deep = match searched {
                    Some(deep) if options.rollout_trials == 0 => deep,
                    // Its own dice, so that the games are the same as the search's. The
                    // positions of one decision (the play made and its siblings) share their
                    // dice: common random numbers, so that the differences between them,
                    // which `fit --rank` learns from, carry far less of the dice's noise
                    // than each value does.
                    _ => {
                        let seed = rollout_seed(options.seed, chunk, decision, out.len());
                        rollout_label(eval, options, seed, pos)
                    }
                };
                out.push(Label {
                    position: *pos,
                    deep,
                    net,
                    decision,
                });
            }
        }
    };
    if options.source != Source::SelfPlay {
        for _ in 0..options.games_per_chunk {
            if let Some(pos) = options.source.draw(&mut rng) {
                consider(&pos, None, &mut out);
            }
        }
        return out;
    }
    let mut list = PlayList::new();
    // Decisions are numbered only when siblings are labelled beside them.
    let mut decisions = 0u32;
    let mut fresh = || {
        decisions += 1;
        Some(decisions - 1).filter(|_| options.siblings > 0)
    };
    for _ in 0..options.games_per_chunk {
        let mut pos = Position::START;
        let mut decision = fresh();
        for ply in 0..MAX_PLIES {
            if pos.is_game_over() {
                break;
            }
            consider(&pos, decision, &mut out);
            let dice = if ply == 0 {
                opening_roll(&mut rng)
            } else {
                roll(&mut rng)
            };
            if pos.generate_plays(dice, &mut list) == 0 {
                pos = pos.swapped();
                decision = fresh();
                continue;
            }
            decision = fresh();
            let mut best = (0, f32::NEG_INFINITY);
            // The plays by the net's equity, kept only when siblings are wanted.
            let mut ranked = Vec::new();
            for i in 0..list.len() {
                let net = equity(&eval.evaluate_after(&list.result(i)));
                if options.siblings > 0 {
                    ranked.push((net, i));
                }
                let e = net + options.noise * rng.symmetric();
                if e > best.1 {
                    best = (i, e);
                }
            }
            if options.siblings > 0 {
                // Best first; ties by the list's order, so that a chunk does not depend on
                // the sort's stability.
                ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
                let others = ranked.iter().filter(|&&(_, i)| i != best.0);
                for &(_, i) in others.take(usize::from(options.siblings)) {
                    consider(&list.result(i), decision, &mut out);
                }
            }
            pos = list.result(best.0);
        }
    }
    out
}

/// Chunks `chunks` of a run, made in parallel on the current rayon pool, in order.
pub fn label_chunks(
    eval: &Evaluator,
    options: &LabelOptions,
    chunks: std::ops::Range<u64>,
) -> Vec<Vec<Label>> {
    use rayon::prelude::*;
    chunks
        .into_par_iter()
        .map(|c| label_chunk(eval, options, c))
        .collect()
}

/// The rollout label of `pos` (see [`LabelOptions::rollout_trials`]); the luck-corrected
/// means can stray outside [0, 1] by their noise and are clamped into it.
fn rollout_label(
    eval: &Evaluator,
    options: &LabelOptions,
    seed: u64,
    pos: &Position,
) -> Probabilities {
    let rollout = Rollout::new(
        eval,
        RolloutOptions {
            trials: options.rollout_trials as u64,
            plies: options.rollout_plies,
            seed,
            ..RolloutOptions::default()
        },
    );
    let r = rollout.position(pos, None, &mut |_| {});
    let p = r.result.estimate().probabilities;
    std::array::from_fn(|k| p[k].clamp(0.0, 1.0) as f32)
}

/// The header lines of a run (each ending in a newline).
pub fn header(options: &LabelOptions, evaluator: u64) -> String {
    format!(
        "{}\n# plies {}{}{}{}{}{}{} noise {} keep {} games-per-chunk {} seed {} evaluator {:016x}\n",
        if options.siblings > 0 {
            MAGIC_DECISIONS
        } else {
            MAGIC
        },
        options.plies,
        match (options.rollout_trials, options.rollout_plies) {
            (0, _) => String::new(),
            (n, 0) => format!(" rollout {n}"),
            (n, k) => format!(" rollout {n} rollout-plies {k}"),
        },
        match options.only {
            None => "",
            Some(Race) => " races",
            Some(Crashed) => " crashed",
            Some(Contact) => " contact",
        },
        match options.source {
            Source::SelfPlay => String::new(),
            other => format!(" source {}", other.name()),
        },
        if options.min_gammons > 0.0 {
            format!(" gammons {}", options.min_gammons)
        } else {
            String::new()
        },
        if options.siblings > 0 {
            format!(" siblings {}", options.siblings)
        } else {
            String::new()
        },
        match options.holding_lead {
            Some(lead) => format!(" holding {lead}"),
            None => String::new(),
        },
        options.noise,
        options.keep,
        options.games_per_chunk,
        options.seed,
        evaluator
    )
}

/// A chunk's records and marker, as written to the file.
pub fn chunk_text(chunk: u64, labels: &[Label]) -> String {
    let mut records = String::new();
    for l in labels {
        record_line(&mut records, l);
    }
    let mut h = Fnv::new();
    h.bytes(records.as_bytes());
    let _ = writeln!(
        records,
        "# chunk {chunk} records {} fnv {:016x}",
        labels.len(),
        h.0
    );
    records
}

fn record_line(s: &mut String, l: &Label) {
    s.push_str(&l.position.position_id());
    for v in l.deep.iter().chain(&l.net) {
        let _ = write!(s, " {v}");
    }
    if let Some(d) = l.decision {
        let _ = write!(s, " d{d}");
    }
    s.push('\n');
}

/// Why a label file was refused.
#[derive(Debug, PartialEq)]
pub enum LabelFileError {
    /// The first line is not [`MAGIC`] or [`MAGIC_DECISIONS`].
    NotLabels,
    /// A line that is not what a label file holds there.
    Damaged { line: usize, what: String },
}

impl std::fmt::Display for LabelFileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LabelFileError::NotLabels => {
                write!(
                    f,
                    "not a Tabula label file (the first line is not `{MAGIC}` or `{MAGIC_DECISIONS}`)"
                )
            }
            LabelFileError::Damaged { line, what } => write!(f, "line {line}: {what}"),
        }
    }
}

impl std::error::Error for LabelFileError {}

/// A label file read and checked.
#[derive(Debug, Default)]
pub struct LabelFile {
    /// The parameter line of the header (without `# `).
    pub parameters: String,
    /// Whether its records name their decisions (the file starts [`MAGIC_DECISIONS`]).
    pub decisions: bool,
    /// Every record of every complete chunk.
    pub labels: Vec<Label>,
    /// The chunk each label belongs to (parallel to `labels`).
    pub chunk_of: Vec<u64>,
    /// Complete chunks (numbered 0, 1, … in order).
    pub chunks: u64,
    /// Bytes of the header and the complete chunks: where a resumed run appends.
    pub valid_len: usize,
    /// Bytes after them: an unfinished chunk (the run was interrupted while writing it).
    pub unfinished_bytes: usize,
}

impl LabelFile {
    /// Reads and checks `text`: the header, every record, every chunk's count and hash, chunk
    /// numbers in order. An unfinished last chunk (records without a marker, or a last line
    /// without its newline) is not an error: it is counted in `unfinished_bytes`.
    pub fn read(text: &str) -> Result<LabelFile, LabelFileError> {
        let mut lines = text.split_inclusive('\n');
        let first = lines.next().unwrap_or("");
        let decisions = first.trim_end() == MAGIC_DECISIONS;
        if !(first.trim_end() == MAGIC || decisions) || !first.ends_with('\n') {
            return Err(LabelFileError::NotLabels);
        }
        let second = lines.next().unwrap_or("");
        let damaged = |line: usize, what: &str| LabelFileError::Damaged {
            line,
            what: what.to_string(),
        };
        if !second.starts_with("# plies ") || !second.ends_with('\n') {
            return Err(damaged(2, "no parameter line"));
        }
        let mut file = LabelFile {
            parameters: second.trim_end()[2..].to_string(),
            decisions,
            valid_len: first.len() + second.len(),
            ..LabelFile::default()
        };
        let mut pending: Vec<Label> = Vec::new();
        let mut hash = Fnv::new();
        let mut offset = file.valid_len;
        for (i, line) in lines.enumerate() {
            let n = i + 3;
            offset += line.len();
            if !line.ends_with('\n') {
                // An unfinished last line, as a write cut short leaves it; anything else there
                // is not this file's, and is not dropped on a resume.
                if !could_be_cut_short(line) {
                    return Err(damaged(
                        n,
                        "a last line without its newline that no record starts as",
                    ));
                }
                break;
            }
            let body = line.trim_end_matches('\n');
            if let Some(marker) = body.strip_prefix("# chunk ") {
                let f: Vec<&str> = marker.split(' ').collect();
                let ok = f.len() == 5 && f[1] == "records" && f[3] == "fnv";
                let number = f.first().and_then(|s| s.parse::<u64>().ok());
                let count = f.get(2).and_then(|s| s.parse::<usize>().ok());
                let fnv = f.get(4).and_then(|s| u64::from_str_radix(s, 16).ok());
                let (Some(number), Some(count), Some(fnv), true) = (number, count, fnv, ok) else {
                    return Err(damaged(n, "a malformed chunk marker"));
                };
                if number != file.chunks {
                    return Err(damaged(
                        n,
                        &format!("chunk {number} where chunk {} was due", file.chunks),
                    ));
                }
                if count != pending.len() || fnv != hash.0 {
                    return Err(damaged(
                        n,
                        &format!("chunk {number} does not match its records (count or hash)"),
                    ));
                }
                file.chunk_of
                    .extend(std::iter::repeat_n(number, pending.len()));
                file.labels.append(&mut pending);
                file.chunks += 1;
                file.valid_len = offset;
                hash = Fnv::new();
                continue;
            }
            pending.push(parse_record(body, decisions).map_err(|what| damaged(n, &what))?);
            hash.bytes(line.as_bytes());
        }
        file.unfinished_bytes = text.len() - file.valid_len;
        Ok(file)
    }
}

/// True when `line` (without its newline) can be the start of a record or a chunk marker: the
/// first word of a Position ID's characters, the others of a number's (or `d<N>`), or a start
/// of `# chunk N records R fnv H`.
fn could_be_cut_short(line: &str) -> bool {
    const MARKER: &str = "# chunk ";
    if line.starts_with('#') {
        return if line.len() <= MARKER.len() {
            MARKER.starts_with(line)
        } else {
            line.starts_with(MARKER)
                && line[MARKER.len()..]
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == ' ')
        };
    }
    let mut words = line.split(' ');
    let id = words.next().unwrap_or("");
    id.len() <= 14
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '+' || c == '/')
        && words.all(|w| {
            w.chars()
                .all(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E' | 'd'))
        })
}

fn parse_record(line: &str, decisions: bool) -> Result<Label, String> {
    let mut f = line.split(' ');
    let id = f.next().unwrap_or("");
    let position =
        Position::from_position_id(id).map_err(|e| format!("bad Position ID {id:?}: {e}"))?;
    let mut v = [0f32; 2 * OUTPUTS];
    for slot in v.iter_mut() {
        let s = f.next().ok_or("fewer than 10 probabilities")?;
        *slot = s
            .parse::<f32>()
            .ok()
            .filter(|x| (0.0..=1.0).contains(x))
            .ok_or_else(|| format!("bad probability {s:?}"))?;
    }
    let decision = if decisions {
        let s = f
            .next()
            .ok_or("no decision number (`d<N>`) after the probabilities")?;
        let n = s.strip_prefix('d').and_then(|n| n.parse::<u32>().ok());
        Some(n.ok_or_else(|| format!("bad decision number {s:?} (`d<N>`)"))?)
    } else {
        None
    };
    if f.next().is_some() {
        return Err(if decisions {
            "more than 10 probabilities and a decision number".into()
        } else {
            "more than 10 probabilities".into()
        });
    }
    Ok(Label {
        position,
        deep: std::array::from_fn(|k| v[k]),
        net: std::array::from_fn(|k| v[OUTPUTS + k]),
        decision,
    })
}

/// FNV-1a, 64 bits.
struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn bytes(&mut self, b: &[u8]) {
        for &x in b {
            self.0 ^= x as u64;
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabula_engine::backgammon::Side;

    /// The drawn side and the other, `(first, other)`, for which `fits(first, other)` holds
    /// (a drawn position puts its first side on roll or not, at random); fails where neither
    /// way fits.
    fn the_sides(pos: &Position, fits: impl Fn(Side, Side) -> bool) -> (Side, Side) {
        if fits(Side::OnRoll, Side::Opponent) {
            (Side::OnRoll, Side::Opponent)
        } else {
            assert!(fits(Side::Opponent, Side::OnRoll), "{}", pos.position_id());
            (Side::Opponent, Side::OnRoll)
        }
    }

    fn small() -> LabelOptions {
        LabelOptions {
            plies: 1,
            games_per_chunk: 1,
            ..LabelOptions::default()
        }
    }

    /// Labels made with the pruning net and without it differ, and so do the fingerprints
    /// that a resumed run must match (a run resumed with `--no-prune` used to be accepted).
    #[test]
    fn the_pruning_net_is_part_of_the_fingerprint() {
        let eval = crate::weights::builtin().unwrap();
        assert!(eval.pruner.is_some());
        let unpruned = eval.clone().without_pruner();
        let o = LabelOptions {
            plies: 2,
            ..small()
        };
        let (a, b) = (label_chunk(eval, &o, 0), label_chunk(&unpruned, &o, 0));
        assert!(a.iter().zip(&b).any(|(x, y)| x.deep != y.deep));
        assert_ne!(fingerprint(eval), fingerprint(&unpruned));
    }

    #[test]
    fn a_chunk_is_the_same_whatever_the_threads_and_the_order() {
        let eval = crate::weights::builtin().unwrap();
        let o = small();
        let one = crate::search::with_threads(1, || label_chunk(eval, &o, 3)).unwrap();
        let two = crate::search::with_threads(2, || label_chunk(eval, &o, 3)).unwrap();
        assert!(!one.is_empty());
        assert_eq!(one, two);
        assert_ne!(one, label_chunk(eval, &o, 4), "chunks differ");
        // Every label is what the searches say about its position.
        let s = Searcher::new(
            eval,
            SearchOptions {
                plies: 1,
                ..SearchOptions::default()
            },
        );
        for l in one.iter().step_by(7) {
            assert_eq!(l.net, eval.evaluate(&l.position));
            assert_eq!(l.deep, s.evaluate(&l.position, 1));
        }
    }

    /// `siblings` labels the same games' path and, after each path position, the results of
    /// the plays the net ranks best at that decision besides the one played: at most K of
    /// them, each the result of a play of some roll from the path position, for a roll whose
    /// plays also lead to the next path position, and in the net's order after it. The header
    /// names K.
    #[test]
    fn siblings_are_the_best_other_plays_of_each_decision() {
        use tabula_engine::backgammon::Dice;
        let eval = crate::weights::builtin().unwrap();
        let k = 2;
        let wide = LabelOptions {
            siblings: k,
            ..small()
        };
        let path = label_chunk(eval, &small(), 5);
        let all = label_chunk(eval, &wide, 5);
        assert!(header(&wide, 0).contains(" siblings 2 noise "));
        assert!(header(&wide, 0).starts_with("# tabula-labels 2\n"));
        assert!(!header(&small(), 0).contains("siblings"));
        assert!(header(&small(), 0).starts_with("# tabula-labels 1\n"));
        // The numbers round-trip through a file, and a number missing or extra is refused.
        let text = header(&wide, 0) + &chunk_text(0, &all);
        let f = LabelFile::read(&text).unwrap();
        assert!(f.decisions);
        assert_eq!(f.labels, all);
        let first = text.lines().nth(2).unwrap();
        let cut = first.rsplit_once(' ').unwrap().0;
        for (from, to) in [(first, cut.to_string()), (first, format!("{first} d1"))] {
            let bad = text.replacen(from, &to, 1);
            assert!(matches!(
                LabelFile::read(&bad),
                Err(LabelFileError::Damaged { line: 3, .. })
            ));
        }
        let plain = header(&small(), 0) + &chunk_text(0, &all);
        assert!(
            LabelFile::read(&plain).is_err(),
            "numbers in a file of version 1"
        );
        let one = header(&small(), 0) + &chunk_text(0, &path);
        assert!(!LabelFile::read(&one).unwrap().decisions);
        // The path's labels, in order, with the labels met between each and the next.
        let mut at = Vec::new();
        let mut rest = all.iter().enumerate();
        for p in &path {
            let (i, _) = rest
                .find(|(_, l)| (l.position, l.deep, l.net) == (p.position, p.deep, p.net))
                .expect("the path is kept, in order");
            assert_eq!(
                p.decision, None,
                "a run without siblings numbers no decision"
            );
            at.push(i);
        }
        assert!(
            all.len() > path.len() + path.len() / 2,
            "{} {}",
            all.len(),
            path.len()
        );
        let mut list = PlayList::new();
        for w in at.windows(2) {
            let (from, next) = (all[w[0]].position, all[w[1]].position);
            let between: Vec<Position> = all[w[0] + 1..w[1]].iter().map(|l| l.position).collect();
            assert!(between.len() <= usize::from(k));
            // The siblings and the play made share the decision's number, a new one.
            let d = all[w[1]].decision.expect("numbered");
            assert!(d > all[w[0]].decision.expect("numbered"));
            assert!(all[w[0] + 1..w[1]].iter().all(|l| l.decision == Some(d)));
            // A roll whose plays lead to `next` and whose best others are `between`.
            let fits = Dice::ALL.into_iter().any(|d| {
                let n = from.generate_plays(d, &mut list);
                let results: Vec<Position> = (0..n).map(|i| list.result(i)).collect();
                let Some(played) = results.iter().position(|r| *r == next) else {
                    return false;
                };
                let mut others: Vec<(f32, usize)> = (0..n)
                    .filter(|&i| i != played)
                    .map(|i| (equity(&eval.evaluate_after(&results[i])), i))
                    .collect();
                others.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
                let best: Vec<Position> = others
                    .iter()
                    .take(usize::from(k))
                    .map(|&(_, i)| results[i])
                    .collect();
                // Siblings the filters drop (exact bear-offs) would leave gaps: those kept
                // are in the net's order among the best.
                let mut kept = best.iter();
                between.iter().all(|b| kept.any(|x| x == b))
            });
            // A roll without a play (on the bar against a closed board) passes the turn.
            let danced = next == from.swapped() && between.is_empty();
            assert!(
                fits || danced,
                "{} then {}",
                from.position_id(),
                next.position_id()
            );
        }
    }

    #[test]
    fn late_hits_are_crashed_contact_with_a_side_hit() {
        let mut rng = Rng::new(5);
        let mut on_bar = 0;
        for _ in 0..2_000 {
            let pos = late_hit(&mut rng);
            assert_eq!(NetClass::of(&pos), Crashed, "{}", pos.position_id());
            // The hit side: 1 to 5 checkers left, one on the bar or on the other side's
            // home board (its own 19- to 24-points), the rest on its own home board; the
            // other side has at least 2 points of its home board made.
            let fits = |hit: Side, other: Side| {
                let (c, o) = (pos.counts(hit), pos.counts(other));
                pos.off(hit) >= 10
                    && c[6..18].iter().sum::<u8>() == 0
                    && c[18..].iter().sum::<u8>() == 1
                    && o[..6].iter().filter(|&&n| n >= 2).count() >= 2
            };
            let hit = if fits(Side::OnRoll, Side::Opponent) {
                Side::OnRoll
            } else {
                assert!(fits(Side::Opponent, Side::OnRoll), "{}", pos.position_id());
                Side::Opponent
            };
            on_bar += usize::from(pos.counts(hit)[24] == 1);
        }
        // Three in four drawn on the bar; a trapped checker is refused more often (a shared
        // point, or past every checker of the other side), so more in the end, but not all.
        assert!((1_500..1_950).contains(&on_bar), "{on_bar}");
    }

    #[test]
    fn back_checkers_are_crashed_contact_with_two_or_three_back() {
        let mut rng = Rng::new(6);
        let (mut three, mut anchors, mut on_bar) = (0, 0, 0);
        for _ in 0..2_000 {
            let pos = back_checkers(&mut rng);
            assert_eq!(NetClass::of(&pos), Crashed, "{}", pos.position_id());
            // The back side: at most 6 checkers left, 2 or 3 on the bar or on the other side's
            // home board (its own 19- to 24-points), the rest on its own home board; the other
            // side has at least 2 points of its home board made.
            let fits = |back: Side, other: Side| {
                let (c, o) = (pos.counts(back), pos.counts(other));
                let behind = c[18..].iter().sum::<u8>();
                pos.off(back) >= 9
                    && c[6..18].iter().sum::<u8>() == 0
                    && (2..=3).contains(&behind)
                    && o[..6].iter().filter(|&&n| n >= 2).count() >= 2
            };
            let (back, _) = the_sides(&pos, fits);
            let c = pos.counts(back);
            three += usize::from(c[18..].iter().sum::<u8>() == 3);
            anchors += usize::from(c[18..24].iter().any(|&n| n >= 2));
            on_bar += usize::from(c[24] > 0);
        }
        // Drawn half with three back, but three are refused more often (a point shared with
        // the other side): 714 of 2,000 with this seed. Anchors (705) and checkers on the bar
        // (1,282: never refused for a shared point) both common, neither the rule.
        assert!((550..900).contains(&three), "{three}");
        assert!((500..900).contains(&anchors), "{anchors}");
        assert!((1_000..1_500).contains(&on_bar), "{on_bar}");
    }

    /// What each drawn source says it draws ([`Source::draws`]) is what its draws are.
    #[test]
    fn each_source_draws_the_classes_it_names() {
        for source in Source::ALL {
            let mut rng = Rng::new(5);
            for _ in 0..500 {
                let Some(pos) = source.draw(&mut rng) else {
                    break;
                };
                let class = NetClass::of(&pos);
                assert!(source.draws(class), "{source:?} {}", pos.position_id());
            }
        }
    }

    #[test]
    fn back_games_hold_two_deep_points_against_a_side_in_play() {
        let mut rng = Rng::new(11);
        let (mut crashed, mut more_back, mut ace_point) = (0, 0, 0);
        for _ in 0..2_000 {
            let pos = back_game(&mut rng);
            let class = NetClass::of(&pos);
            assert_ne!(class, Race, "{}", pos.position_id());
            crashed += usize::from(class == Crashed);
            // The defender: all 15 in play, two points (2 or more checkers) on the other
            // side's home board, one of them its 1-, 2- or 3-point; the attacker: at most 3
            // off, at least 2 home points made, none on the bar or on its 19- to 24-points
            // (the defender's home board).
            let fits = |defender: Side, attacker: Side| {
                let (d, a) = (pos.counts(defender), pos.counts(attacker));
                let held: Vec<usize> = (18..24).filter(|&p| d[p] >= 2).collect();
                pos.off(defender) == 0
                    && held.len() >= 2
                    && held.iter().any(|&p| p >= 21)
                    && pos.off(attacker) <= 3
                    && a[..6].iter().filter(|&&n| n >= 2).count() >= 2
                    && a[18..].iter().all(|&n| n == 0)
            };
            let (defender, _) = the_sides(&pos, fits);
            let d = pos.counts(defender);
            more_back += usize::from(d[18..].iter().sum::<u8>() > 6);
            ace_point += usize::from(d[23] >= 2);
        }
        // Contact positions, crashed only where the attacker piles its checkers on its ace and
        // deuce points: 20 of 2,000 with this seed. More than 6 back (two points of 3 and a
        // third checker) now and then: 152; the defender holds
        // the other side's ace point in nearly half the draws (the first point is its 1 to 3,
        // the second any other of the six): 942.
        assert!(crashed < 100, "{crashed}");
        assert!((80..250).contains(&more_back), "{more_back}");
        assert!((700..1_200).contains(&ace_point), "{ace_point}");
    }

    #[test]
    fn back_in_play_has_checkers_back_against_a_side_in_play() {
        let mut rng = Rng::new(7);
        let (mut on_their_board, mut all_in) = (0, 0);
        for _ in 0..2_000 {
            let pos = back_in_play(&mut rng);
            assert_eq!(NetClass::of(&pos), Crashed, "{}", pos.position_id());
            // The back side: at most 6 checkers left, 1 to 3 of them back, the rest home; the
            // other side: at most 3 off, at least 2 home points made.
            let fits = |back: Side, other: Side| {
                let (c, o) = (pos.counts(back), pos.counts(other));
                pos.off(back) >= 9
                    && c[6..18].iter().sum::<u8>() == 0
                    && (1..=3).contains(&c[18..].iter().sum::<u8>())
                    && pos.off(other) <= 3
                    && o[..6].iter().filter(|&&n| n >= 2).count() >= 2
            };
            let (_, other) = the_sides(&pos, fits);
            on_their_board += usize::from(pos.counts(other)[18..24].iter().any(|&n| n > 0));
            all_in += usize::from(pos.off(other) == 0);
        }
        // The holding side has checkers back of its own in about half the draws (each of its
        // free checkers goes there one time in five; a point the first side holds refuses
        // the draw): 1,067 of 2,000 with this seed; none off in about a quarter (463).
        assert!((800..1_400).contains(&on_their_board), "{on_their_board}");
        assert!((300..650).contains(&all_in), "{all_in}");
    }

    #[test]
    fn a_late_hit_chunk_labels_its_drawn_positions() {
        let eval = crate::weights::builtin().unwrap();
        let o = LabelOptions {
            games_per_chunk: 6,
            source: Source::LateHit,
            ..small()
        };
        let labels = label_chunk(eval, &o, 1);
        let mut rng = chunk_rng(o.seed, 1);
        let drawn: Vec<Position> = (0..6).map(|_| late_hit(&mut rng)).collect();
        let kept: Vec<Position> = labels.iter().map(|l| l.position).collect();
        assert_eq!(kept, drawn, "keep 0: every drawn position, in order");
        assert_eq!(labels, label_chunk(eval, &o, 1));
        assert!(header(&o, 0).contains(" source late-hit "));
        let back = LabelOptions {
            source: Source::BackCheckers,
            ..o
        };
        let mut rng = chunk_rng(o.seed, 1);
        let drawn: Vec<Position> = (0..6).map(|_| back_checkers(&mut rng)).collect();
        let kept: Vec<Position> = label_chunk(eval, &back, 1)
            .iter()
            .map(|l| l.position)
            .collect();
        assert_eq!(kept, drawn);
        assert!(header(&back, 0).contains(" source back-checkers "));
        for s in Source::ALL {
            assert_eq!(Source::from_name(s.name()), Some(s));
        }
        assert_eq!(Source::from_name("late-hits"), None);
        assert!(!header(&small(), 0).contains("source"));
    }

    /// Chunk `chunk` labelled as `o` says (by rollouts) and by the search alone.
    fn rolled_and_searched(
        eval: &Evaluator,
        o: &LabelOptions,
        chunk: u64,
    ) -> (Vec<Label>, Vec<Label>) {
        let searched = LabelOptions {
            rollout_trials: 0,
            ..*o
        };
        (
            label_chunk(eval, o, chunk),
            label_chunk(eval, &searched, chunk),
        )
    }

    /// With siblings the play made and its siblings are rolled out on their decision's dice
    /// (common random numbers); on a game's path alone each label keeps its own dice, as
    /// before siblings existed, so those files stay byte for byte the same.
    #[test]
    fn sibling_rollouts_share_their_decisions_dice() {
        // Path alone: the label's index decides, by the formula of the files made before.
        for i in [0usize, 1, 7] {
            let before = chunk_rng(!5, 3 ^ ((i as u64) << 32)).state();
            assert_eq!(rollout_seed(5, 3, None, i), before);
        }
        assert_ne!(rollout_seed(5, 3, None, 0), rollout_seed(5, 3, None, 1));
        // Siblings: the decision decides, whatever the index; decisions and chunks differ.
        assert_eq!(
            rollout_seed(5, 3, Some(2), 0),
            rollout_seed(5, 3, Some(2), 9)
        );
        assert_ne!(
            rollout_seed(5, 3, Some(2), 0),
            rollout_seed(5, 3, Some(3), 0)
        );
        assert_ne!(
            rollout_seed(5, 3, Some(2), 0),
            rollout_seed(5, 4, Some(2), 0)
        );
        assert_ne!(rollout_seed(5, 3, Some(0), 0), rollout_seed(5, 3, None, 0));
        // And the run uses them: every label of a decision is the rollout on its dice.
        let eval = crate::weights::builtin().unwrap();
        let o = LabelOptions {
            rollout_trials: 2,
            siblings: 2,
            ..small()
        };
        let (labels, searched) = rolled_and_searched(eval, &o, 2);
        // keep 0: the search is not run, and every position it would label is labelled.
        assert_eq!(labels.len(), searched.len());
        assert!(labels
            .iter()
            .zip(&searched)
            .all(|(r, s)| r.position == s.position));
        let mut shared = 0;
        for (k, l) in labels.iter().enumerate().skip(1).step_by(5).take(6) {
            let d = l.decision.expect("siblings number the decisions");
            shared += labels.iter().filter(|m| m.decision == Some(d)).count() - 1;
            let again = rollout_label(eval, &o, rollout_seed(o.seed, 2, Some(d), 0), &l.position);
            assert_eq!(again, l.deep, "label {k} is its decision's rollout");
        }
        assert!(shared > 0, "some decisions have siblings");
    }

    #[test]
    fn rollout_labels_are_rollouts() {
        let eval = crate::weights::builtin().unwrap();
        let o = LabelOptions {
            rollout_trials: 2,
            // 0.03: 14 of the chunk's 52 positions with stop 55's weights (0.06 kept none).
            keep: 0.03,
            ..small()
        };
        let (labels, searched) = rolled_and_searched(eval, &o, 2);
        assert!(!labels.is_empty());
        // The same positions are kept (the search chooses), labelled differently.
        assert_eq!(labels.len(), searched.len());
        for (r, s) in labels.iter().zip(&searched) {
            assert_eq!((r.position, r.net), (s.position, s.net));
            assert!(r.deep.iter().all(|p| (0.0..=1.0).contains(p)));
        }
        assert!(labels.iter().zip(&searched).any(|(r, s)| r.deep != s.deep));
        assert!(header(&o, 0).contains(" rollout 2 "));
        // Deeper rollout players: other labels of the same positions, named in the header.
        let deeper = LabelOptions {
            rollout_plies: 1,
            ..o
        };
        let by_1_ply = label_chunk(eval, &deeper, 2);
        assert_eq!(by_1_ply.len(), labels.len());
        assert!(by_1_ply
            .iter()
            .zip(&labels)
            .all(|(d, r)| d.position == r.position));
        assert!(by_1_ply.iter().zip(&labels).any(|(d, r)| d.deep != r.deep));
        assert!(header(&deeper, 0).contains(" rollout 2 rollout-plies 1 "));
    }

    #[test]
    fn keep_drops_the_positions_where_net_and_search_agree() {
        let eval = crate::weights::builtin().unwrap();
        let all = label_chunk(eval, &small(), 5);
        let kept = label_chunk(
            eval,
            &LabelOptions {
                keep: 0.05,
                ..small()
            },
            5,
        );
        let expected: Vec<Label> = all
            .iter()
            .filter(|l| (equity(&l.deep) - equity(&l.net)).abs() >= 0.05)
            .copied()
            .collect();
        assert!(kept.len() < all.len());
        assert_eq!(kept, expected);
    }

    /// With `only` a class, a run labels the positions of that class in the games of a full
    /// run, and says so in its header.
    fn only_keeps_its_class(class: NetClass, chunks: u64, word: &str) {
        let eval = crate::weights::builtin().unwrap();
        let only_class = LabelOptions {
            only: Some(class),
            ..small()
        };
        let (mut all, mut only) = (Vec::new(), Vec::new());
        for c in 0..chunks {
            all.extend(label_chunk(eval, &small(), c));
            only.extend(label_chunk(eval, &only_class, c));
        }
        let expected: Vec<Label> = all
            .iter()
            .filter(|l| NetClass::of(&l.position) == class)
            .copied()
            .collect();
        assert!(!only.is_empty() && only.len() < all.len(), "{class:?}");
        assert_eq!(only, expected, "{class:?}");
        assert!(header(&only_class, 0).contains(&format!(" 1 {word} noise ")));
        assert!(!header(&small(), 0).contains(word));
    }

    /// `min_gammons` keeps the positions of a full run's games whose net gammon rate reaches
    /// it, labelled as the full run labels them, and the header says so.
    #[test]
    fn min_gammons_keeps_the_gammonish_positions_of_the_same_games() {
        let eval = crate::weights::builtin().unwrap();
        let gammonish = LabelOptions {
            min_gammons: 0.35,
            ..small()
        };
        let (mut all, mut kept) = (Vec::new(), Vec::new());
        for c in 0..3 {
            all.extend(label_chunk(eval, &small(), c));
            kept.extend(label_chunk(eval, &gammonish, c));
        }
        let expected: Vec<Label> = all
            .iter()
            .filter(|l| l.net[1] + l.net[3] >= 0.35)
            .copied()
            .collect();
        assert!(!kept.is_empty() && kept.len() < all.len());
        assert_eq!(kept, expected);
        assert!(header(&gammonish, 0).contains(" 1 gammons 0.35 noise "));
        assert!(!header(&small(), 0).contains("gammons"));
    }

    /// `holding_lead` keeps the positions of a full run's games that are a holding game's
    /// leader on roll, labelled as the full run labels them; the test of each position is
    /// made again here from the checker counts alone.
    #[test]
    fn holding_lead_keeps_the_leaders_turns_of_the_same_games() {
        let eval = crate::weights::builtin().unwrap();
        let holding = LabelOptions {
            holding_lead: Some(10),
            games_per_chunk: 4,
            ..small()
        };
        let full = LabelOptions {
            games_per_chunk: 4,
            ..small()
        };
        // From the counts: the side on roll has nothing on its 19- to 24-points or the bar,
        // leads by 10 pips or more, and the position is contact and not crashed.
        let by_counts = |pos: &Position| {
            let (me, opp) = (pos.counts(Side::OnRoll), pos.counts(Side::Opponent));
            let pips = |c: &[u8; 25]| -> u32 {
                c.iter()
                    .enumerate()
                    .map(|(i, &n)| (i as u32 + 1) * u32::from(n))
                    .sum()
            };
            me[18..].iter().all(|&n| n == 0)
                && pips(&opp) >= pips(&me) + 10
                && crate::inputs::is_contact(pos)
                && !crate::inputs::is_crashed(pos)
        };
        let (mut all, mut kept) = (Vec::new(), Vec::new());
        for c in 0..3 {
            all.extend(label_chunk(eval, &full, c));
            kept.extend(label_chunk(eval, &holding, c));
        }
        let expected: Vec<Label> = all
            .iter()
            .filter(|l| by_counts(&l.position))
            .copied()
            .collect();
        assert!(
            !kept.is_empty() && kept.len() < all.len() / 4,
            "{} of {}",
            kept.len(),
            all.len()
        );
        assert_eq!(kept, expected);
        assert!(header(&holding, 0).contains(" 1 holding 10 noise "));
        assert!(!header(&small(), 0).contains("holding"));
        // The trailing side on roll, or a lead short of the threshold, is not the leader's turn.
        for l in &kept {
            assert!(!is_holding_lead(&l.position.swapped(), 0));
            let lead = l.position.pips(Side::Opponent) - l.position.pips(Side::OnRoll);
            assert!(!is_holding_lead(&l.position, lead + 1));
        }
    }

    #[test]
    fn races_only_keeps_the_race_positions_of_the_same_games() {
        only_keeps_its_class(Race, 4, "races");
    }

    #[test]
    fn crashed_only_keeps_the_crashed_positions_of_the_same_games() {
        only_keeps_its_class(Crashed, 12, "crashed");
        only_keeps_its_class(Contact, 2, "contact");
    }

    #[test]
    fn races_only_labels_exact_bear_offs_by_the_database() {
        use std::sync::Arc;
        use tabula_tablebase::bearoff::OneSided;
        let net_only = crate::weights::builtin().unwrap();
        let eval = net_only.clone().with_bearoff(Arc::new(OneSided::build()));
        let is_exact = |l: &Label| {
            eval.bearoff
                .as_ref()
                .and_then(|t| t.probabilities(&l.position))
                .is_some()
        };
        let races = LabelOptions {
            only: Some(Race),
            ..small()
        };
        let labels: Vec<Label> = (0..3).flat_map(|c| label_chunk(&eval, &races, c)).collect();
        let exact: Vec<&Label> = labels.iter().filter(|l| is_exact(l)).collect();
        assert!(!exact.is_empty() && exact.len() < labels.len());
        // They are valid records: the file reads back.
        let text = header(&races, 0) + &chunk_text(0, &labels);
        assert_eq!(LabelFile::read(&text).unwrap().labels, labels);
        for l in exact {
            assert_eq!(l.deep, eval.evaluate(&l.position), "the database's value");
            assert_eq!(l.net, net_only.evaluate(&l.position), "the race net's own");
        }
        // A full run never labels them: the net is not asked there.
        let all: Vec<Label> = (0..3)
            .flat_map(|c| label_chunk(&eval, &small(), c))
            .collect();
        assert!(!all.is_empty() && !all.iter().any(is_exact));
    }

    #[test]
    fn a_file_round_trips_and_damage_is_refused() {
        let eval = crate::weights::builtin().unwrap();
        let o = small();
        let a = label_chunk(eval, &o, 0);
        let b = label_chunk(eval, &o, 1);
        let text = header(&o, fingerprint(eval)) + &chunk_text(0, &a) + &chunk_text(1, &b);
        let f = LabelFile::read(&text).unwrap();
        assert_eq!(f.chunks, 2);
        assert_eq!(f.valid_len, text.len());
        assert_eq!(f.unfinished_bytes, 0);
        assert_eq!(f.labels.len(), a.len() + b.len());
        for (x, y) in f.labels.iter().zip(a.iter().chain(&b)) {
            assert_eq!(x.position, y.position);
            // Written with Rust's shortest round-trip formatting: exact.
            assert_eq!(x.deep, y.deep);
            assert_eq!(x.net, y.net);
        }
        assert_eq!(f.chunk_of.iter().filter(|&&c| c == 1).count(), b.len());

        // An interrupted write: the valid prefix is the first chunk.
        let cut = text.len() - 30;
        let g = LabelFile::read(&text[..cut]).unwrap();
        assert_eq!(g.chunks, 1);
        assert_eq!(g.unfinished_bytes, cut - g.valid_len);
        assert_eq!(g.labels.len(), a.len());

        // Every cut of the last chunk's text is a write cut short; a last line that no record
        // starts as is not dropped but refused.
        for cut in (text.len() - chunk_text(1, &b).len() + 1)..text.len() {
            assert!(LabelFile::read(&text[..cut]).is_ok(), "{:?}", &text[..cut]);
        }
        for tail in ["my important note", "# note", "AAAAAAAAAAAAAAAAAAAA 0.5"] {
            let noted = format!("{text}{tail}");
            assert!(
                matches!(
                    LabelFile::read(&noted),
                    Err(LabelFileError::Damaged { line: 3.., .. })
                ),
                "{tail}"
            );
        }

        // A changed digit in a record: the chunk's hash no longer matches.
        let first_record = text.lines().nth(2).unwrap();
        let changed = first_record.replacen("0.", "0.9", 1);
        let bad = text.replacen(first_record, &changed, 1);
        assert!(matches!(
            LabelFile::read(&bad),
            Err(LabelFileError::Damaged { line: 3.., .. })
        ));
        // A missing chunk.
        let skipped = header(&o, 1) + &chunk_text(1, &b);
        assert!(LabelFile::read(&skipped).is_err());
        assert_eq!(
            LabelFile::read("hello\n").unwrap_err(),
            LabelFileError::NotLabels
        );
    }
}
