//! Cube decisions from cubeless probabilities: cubeful equities for money play (Janowski's
//! cube-efficiency model) and match play (the same model in match winning chances over the
//! Kazaross-XG2 table), and the doubler's and the receiver's decisions.
//!
//! **Money play** (Rick Janowski, "Take-Points in Money Games", 1993). From the five cubeless
//! outputs of the player on roll, `W = 1 + (P(wg) + P(wbg)) / P(w)` is the average value of a win
//! and `L = 1 + (P(lg) + P(lbg)) / P(l)` of a loss (per cube unit). The *dead-cube* equity is the
//! cubeless one, `E_dead = p·W − (1 − p)·L`. The *live-cube* equity (a fully efficient cube that
//! is doubled exactly at the other side's take point) is piecewise linear in the win chance `p`
//! between `(0, −L)` and `(1, W)`, through `(TP, −1)` when the opponent can double and
//! `(CP, +1)` when the player can, with the live take point `TP = (L − ½)/(W + L + ½)` and cash
//! point `CP = (L + 1)/(W + L + ½)`. The cubeful equity is the blend
//! `E = (1 − x)·E_dead + x·E_live`, with the cube efficiency `x` (0.68 is customary for
//! middle games, [`DEFAULT_CUBE_EFFICIENCY`]; gnubg uses 0.6–0.7 depending on the position
//! class). Solving for the receiver's take point gives Janowski's closed form
//! `TP = (L' − ½)/(W' + L' + ½x)` in the receiver's `W'`, `L'`: 25% with a dead cube, 20% with a
//! fully live one and 0.5/2.34 ≈ 21.4% at `x = 0.68` without gammons (tested below).
//!
//! **Match play.** The same construction in match winning chances (MWC): a win or loss of
//! `k × cube` points is worth its Kazaross-XG2 entry ([`met::equity_after`], which applies the
//! Crawford and post-Crawford rules); the gammon and backgammon shares of each side's wins are
//! those of the current position. For a cube at value `c`, the live curve of a player runs from
//! `(0, MWC(all losses at c))` to `(1, MWC(all wins at c))`, through the opponent's cash point
//! `(TP, MWC(lose c))` when the opponent may double and through the player's own cash point
//! `(CP, MWC(win c))` when the player may; the take points come from the same curves one level up
//! (a take point at `2c` is where owning the `2c` cube is worth passing at `c`), recursively until
//! the cube is dead (Crawford game, cube at [`MAX_CUBE`], or the cube already wins the match for
//! the side that would double). The cubeful MWC is again `(1 − x)·dead + x·live`, with one
//! exception: when the opponent owns a cube that the player's wins already beat (the player
//! needs at most `c` points), the opponent's redouble is free and made at once, so the value is
//! at most what it leaves (the player's better of taking at `2c` and passing): at 2-away 4-away
//! after a double, the doubler's winning chance. At 2-away 2-away the receiver's take point is
//! the MET's 32.3%, and post-Crawford the trailer doubles at once (tested below).
//!
//! **Decisions.** For the player on roll: no double `ND` (cubeful value at the current cube),
//! double/take `DT` (the cube at twice the value, owned by the opponent) and double/pass `DP`
//! (winning the current cube value). Money equities are per current cube unit (`DP = +1`); match
//! values are MWC. Double iff `min(DT, DP) > ND`; the receiver takes iff `DT ≤ DP`.

use tabula_engine::backgammon::{met, Position, Side, MAX_CUBE, MAX_MATCH_LENGTH};

use crate::net::Probabilities;

/// The customary cube efficiency for Janowski's model.
pub const DEFAULT_CUBE_EFFICIENCY: f64 = 0.68;

/// Janowski's cube efficiency in short bear-offs (every checker of both sides in its home
/// board or off, at most [`BEAROFF_SHORT_PIPS`] pips for the player on roll), measured: the
/// least-squares fit of `(1 − x)·dead + x·live` to the exact money cubeful values of every
/// bear-off of 4 checkers a side (x = 0.46 with the cube centred, 0.43 owned, 0.52 the
/// opponent's) and of 5 (0.62, 0.55, 0.58), from the one-sided database's exact cubeless
/// chances (`cube_compare -- fit N`; docs/results.md). Under 16 pips the fits are 0.1–0.55
/// (lowest for the opponent's cube near the end), from 16 pips they rise to 0.7–0.85 (centred
/// and the opponent's) at 20–31 pips.
pub const BEAROFF_CUBE_EFFICIENCY: f64 = 0.5;

/// Janowski's cube efficiency in short money bear-offs for a cube the opponent of the player on
/// roll owns (also after a double the player on roll would give), measured: the least-squares
/// fits above give 0.15 – 0.43 for the opponent's cube under 16 pips with 4 checkers a side and
/// 0.09 – 0.25 with 5 (it can be used only after the player on roll's next roll, when short
/// bear-offs are mostly decided). Chosen on the exact judge (`cube_compare -- exact 3 2`, money,
/// 2 plies; 0.5, 0.4, 0.35, 0.3, 0.25, 0.15: wrong doubles 27, 11, 8, 10, 18, 39 of 3,136 and
/// wrong takes 16, 8, 6, 4, 8, 31) and checked with 4 checkers a side (stop 64; docs/results.md).
pub const BEAROFF_OPPONENT_CUBE_EFFICIENCY: f64 = 0.35;

/// The pip count (of the player on roll) up to which a bear-off has
/// [`BEAROFF_CUBE_EFFICIENCY`] (and [`BEAROFF_OPPONENT_CUBE_EFFICIENCY`]); from there the
/// efficiency rises linearly to the advisor's at [`BEAROFF_LONG_PIPS`], following the fits.
pub const BEAROFF_SHORT_PIPS: u32 = 16;

/// See [`BEAROFF_SHORT_PIPS`].
pub const BEAROFF_LONG_PIPS: u32 = 28;

/// Whether `pos` is a bear-off: every checker of both sides in its home board or off.
pub fn is_bearoff(pos: &Position) -> bool {
    [Side::OnRoll, Side::Opponent]
        .iter()
        .all(|&side| pos.counts(side)[6..].iter().all(|&n| n == 0))
}

/// Janowski's cube efficiency of a position, by who owns the cube (seen from the player on
/// roll). A plain `f64` converts to the same efficiency for every owner.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Efficiency {
    /// For a centred cube or the player on roll's own.
    pub own: f64,
    /// For a cube the opponent owns.
    pub theirs: f64,
}

impl Efficiency {
    /// The same efficiency `x` whoever owns the cube.
    pub fn flat(x: f64) -> Efficiency {
        Efficiency { own: x, theirs: x }
    }

    /// The efficiency for a cube at `owner`.
    pub fn for_owner(&self, owner: CubeOwner) -> f64 {
        match owner {
            CubeOwner::Opponent => self.theirs,
            CubeOwner::Centred | CubeOwner::Me => self.own,
        }
    }

    /// The efficiency for `state`: in money play its owner's ([`Efficiency::for_owner`]), at a
    /// match score the centred cube's for every owner. (The opponent's lower one measured worse
    /// at 2-away 4-away at 0 plies, where the taker's recube decides the match: wrong doubles
    /// 450 → 666 of 3,136 bear-offs of 3 checkers a side, wrong takes 344 → 476.)
    pub fn for_state(&self, state: &CubeState) -> f64 {
        match state.match_score {
            None => self.for_owner(state.owner),
            Some(_) => self.own,
        }
    }
}

impl From<f64> for Efficiency {
    fn from(x: f64) -> Efficiency {
        Efficiency::flat(x)
    }
}

/// The cube efficiency for `pos` given the advisor's `x` (for contact and races): in a
/// bear-off at most [`BEAROFF_CUBE_EFFICIENCY`] (the opponent's cube
/// [`BEAROFF_OPPONENT_CUBE_EFFICIENCY`]) up to [`BEAROFF_SHORT_PIPS`] pips of the player on
/// roll, rising linearly to `x` at [`BEAROFF_LONG_PIPS`]; never above `x`.
pub fn efficiency(pos: &Position, x: f64) -> Efficiency {
    if !is_bearoff(pos) {
        return Efficiency::flat(x);
    }
    let pips = pos.pips(Side::OnRoll);
    let t = f64::from(pips.clamp(BEAROFF_SHORT_PIPS, BEAROFF_LONG_PIPS) - BEAROFF_SHORT_PIPS)
        / f64::from(BEAROFF_LONG_PIPS - BEAROFF_SHORT_PIPS);
    let ramp = |short: f64| {
        let short = short.min(x);
        short + (x - short) * t
    };
    Efficiency {
        own: ramp(BEAROFF_CUBE_EFFICIENCY),
        theirs: ramp(BEAROFF_OPPONENT_CUBE_EFFICIENCY),
    }
}

const EPS: f64 = 1e-9;

/// Who owns the cube, seen from the player on roll.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CubeOwner {
    Centred,
    /// The player on roll.
    Me,
    Opponent,
}

/// The match score, from the player on roll.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MatchScore {
    /// Match length (1..=25).
    pub length: u32,
    /// Points of the player on roll, then of the opponent (each below `length`).
    pub score: [u32; 2],
    /// This game is the Crawford game.
    pub crawford: bool,
}

impl MatchScore {
    /// Points still needed by side 0 (the player on roll) or 1.
    pub fn away(&self, side: usize) -> u32 {
        self.length.saturating_sub(self.score[side])
    }
}

/// The cube and the kind of play.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CubeState {
    /// Cube value (a power of two).
    pub value: u32,
    pub owner: CubeOwner,
    /// `None` for money play.
    pub match_score: Option<MatchScore>,
    /// Money play under the Jacoby rule (gammons count only once the cube has been turned).
    pub jacoby: bool,
}

impl CubeState {
    /// A money game with a centred cube at 1, without the Jacoby rule.
    pub fn money() -> CubeState {
        CubeState {
            value: 1,
            owner: CubeOwner::Centred,
            match_score: None,
            jacoby: false,
        }
    }

    /// The cube of a game between players 0 and 1, seen from player `mover`: the cube value and
    /// its owner (a player, or `None` when centred), the match length (0: money; a match longer
    /// than the match equity table is played by the money model), both players' scores, the
    /// Crawford flag and the Jacoby rule (money only).
    pub fn for_player(
        mover: usize,
        value: u32,
        owner: Option<usize>,
        match_length: u32,
        score: [u32; 2],
        crawford: bool,
        jacoby: bool,
    ) -> CubeState {
        let owner = match owner {
            None => CubeOwner::Centred,
            Some(o) if o == mover => CubeOwner::Me,
            Some(_) => CubeOwner::Opponent,
        };
        let match_score =
            (match_length > 0 && match_length <= MAX_MATCH_LENGTH).then(|| MatchScore {
                length: match_length,
                score: [score[mover], score[1 - mover]],
                crawford,
            });
        CubeState {
            value,
            owner,
            match_score,
            jacoby: jacoby && match_length == 0,
        }
    }

    /// Whether the player on roll may double now (the cube is available to them and alive).
    pub fn may_double(&self) -> bool {
        if self.owner == CubeOwner::Opponent || self.value >= MAX_CUBE {
            return false;
        }
        match self.match_score {
            None => true,
            Some(m) => !m.crawford && self.value < m.away(0),
        }
    }
}

/// The doubler's best action.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CubeAction {
    /// Not good enough to double (or not allowed to).
    NoDouble,
    /// Double; the opponent should take.
    DoubleTake,
    /// Double; the opponent should pass.
    DoublePass,
    /// Too good to double: play on for the gammon (the opponent would pass).
    TooGood,
}

/// A cube decision for the player on roll.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CubeDecision {
    /// Cubeful value without doubling (money: per current cube unit; match: MWC).
    pub no_double: f64,
    /// Value after double and take.
    pub double_take: f64,
    /// Value after double and pass.
    pub double_pass: f64,
    /// Whether the rules let the player on roll double now.
    pub may_double: bool,
    /// The doubler's best action (always [`CubeAction::NoDouble`] when it may not double).
    pub action: CubeAction,
    /// The receiver of a double should take (`DT ≤ DP` from the doubler's side).
    pub take: bool,
}

impl CubeDecision {
    /// The best value for the player on roll, counting the opponent's best answer.
    pub fn best(&self) -> f64 {
        match self.action {
            CubeAction::DoubleTake | CubeAction::DoublePass => {
                self.double_take.min(self.double_pass)
            }
            _ => self.no_double,
        }
    }

    /// Whether the decision is to double (the opponent taking or not); too good plays on.
    pub fn offers_double(&self) -> bool {
        matches!(self.action, CubeAction::DoubleTake | CubeAction::DoublePass)
    }

    /// The decision in words, as `hint` prints it (and its JSON `cube.action` holds).
    pub fn action_text(&self) -> &'static str {
        match (self.may_double, self.action) {
            (false, _) => "no double (the cube is not available)",
            (true, CubeAction::NoDouble) => "no double",
            (true, CubeAction::DoubleTake) => "double, take",
            (true, CubeAction::DoublePass) => "double, pass",
            (true, CubeAction::TooGood) => "too good to double, pass",
        }
    }
}

/// `[single, gammon only, backgammon]` shares of a side's wins.
fn shares(win: f64, gammon: f64, backgammon: f64) -> [f64; 3] {
    if win <= EPS {
        return [1.0, 0.0, 0.0];
    }
    let g = (gammon / win).clamp(0.0, 1.0);
    let bg = (backgammon / win).clamp(0.0, g);
    [1.0 - g, g - bg, bg]
}

fn as_f64(p: &Probabilities) -> [f64; 5] {
    p.map(|v| (v as f64).clamp(0.0, 1.0))
}

/// Money: average value of a win and of a loss per cube unit, `(W, L)`.
fn money_values(p: &[f64; 5]) -> (f64, f64) {
    let (w, l) = (p[0], 1.0 - p[0]);
    let wv = if w > EPS {
        1.0 + (p[1] + p[2]) / w
    } else {
        1.0
    };
    let lv = if l > EPS {
        1.0 + (p[3] + p[4]) / l
    } else {
        1.0
    };
    (wv, lv)
}

/// Janowski's live-cube money equity per cube unit for win chance `p`, average win `w` and loss
/// `l`, with the cube `owner` (and the Jacoby rule, which only matters for a centred cube).
pub fn money_live(p: f64, w: f64, l: f64, owner: CubeOwner, jacoby: bool) -> f64 {
    let tp = (l - 0.5) / (w + l + 0.5);
    let cp = (l + 1.0) / (w + l + 0.5);
    let lerp = |x0: f64, y0: f64, x1: f64, y1: f64| y0 + (y1 - y0) * (p - x0) / (x1 - x0);
    match owner {
        CubeOwner::Centred => {
            if p < tp {
                if jacoby {
                    -1.0
                } else {
                    lerp(0.0, -l, tp, -1.0)
                }
            } else if p < cp {
                lerp(tp, -1.0, cp, 1.0)
            } else if jacoby {
                1.0
            } else {
                lerp(cp, 1.0, 1.0, w)
            }
        }
        CubeOwner::Me => {
            if p < cp {
                lerp(0.0, -l, cp, 1.0)
            } else {
                lerp(cp, 1.0, 1.0, w)
            }
        }
        CubeOwner::Opponent => {
            if p < tp {
                lerp(0.0, -l, tp, -1.0)
            } else {
                lerp(tp, -1.0, 1.0, w)
            }
        }
    }
}

/// Money: the cubeful equity per cube unit of the player on roll with the cube at `owner`.
fn money_cubeful(p: &[f64; 5], owner: CubeOwner, jacoby: bool, x: f64) -> f64 {
    let jacoby = jacoby && owner == CubeOwner::Centred;
    let q = if jacoby {
        [p[0], 0.0, 0.0, 0.0, 0.0]
    } else {
        *p
    };
    let dead = 2.0 * q[0] - 1.0 + q[1] + q[2] - q[3] - q[4];
    if q[0] <= EPS || q[0] >= 1.0 - EPS {
        return dead;
    }
    let (w, l) = money_values(&q);
    (1.0 - x) * dead + x * money_live(q[0], w, l, owner, jacoby)
}

/// The live-cube model in match winning chances, over the MET.
struct MatchModel {
    m: MatchScore,
    /// How side 0 (on roll) and side 1 win: single, gammon, backgammon shares.
    shares: [[f64; 3]; 2],
}

impl MatchModel {
    /// MWC of `side` after `winner` wins `points` this game.
    fn after(&self, side: usize, winner: usize, points: u32) -> f64 {
        let m = &self.m;
        met::equity_after(m.length, m.score, m.crawford, winner, points, side).unwrap_or(0.5)
    }

    /// MWC of `side` when it wins at cube `cube`, averaged over the kinds of win.
    fn win_value(&self, side: usize, cube: u32) -> f64 {
        (0..3)
            .map(|k| self.shares[side][k] * self.after(side, side, cube * (k as u32 + 1)))
            .sum()
    }

    /// MWC of `side` when it loses at cube `cube`.
    fn lose_value(&self, side: usize, cube: u32) -> f64 {
        (0..3)
            .map(|k| self.shares[1 - side][k] * self.after(side, 1 - side, cube * (k as u32 + 1)))
            .sum()
    }

    /// `side` could usefully double a cube at `cube`.
    fn alive(&self, side: usize, cube: u32) -> bool {
        !self.m.crawford && cube < MAX_CUBE && cube < self.m.away(side)
    }

    /// The live-cube MWC of `side` at cube `cube` owned by `owner` (relative to `side`), as
    /// points `(win chance, MWC)` of a piecewise-linear curve.
    fn curve(&self, side: usize, cube: u32, owner: CubeOwner) -> Vec<(f64, f64)> {
        let opp = 1 - side;
        let mut pts = vec![(0.0, self.lose_value(side, cube))];
        if owner != CubeOwner::Me && self.alive(opp, cube) {
            let tp = self.take_point(side, 2 * cube).clamp(EPS, 1.0 - EPS);
            pts.push((tp, self.after(side, opp, cube)));
        }
        if owner != CubeOwner::Opponent && self.alive(side, cube) {
            let cp = (1.0 - self.take_point(opp, 2 * cube)).clamp(EPS, 1.0 - EPS);
            pts.push((cp, self.after(side, side, cube)));
        }
        pts.push((1.0, self.win_value(side, cube)));
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        pts
    }

    /// The win chance at which `side`, doubled to `cube`, is indifferent between taking (and
    /// owning the cube at `cube`) and passing (losing `cube / 2`).
    fn take_point(&self, side: usize, cube: u32) -> f64 {
        let pass = self.after(side, 1 - side, cube / 2);
        inverse(&self.curve(side, cube, CubeOwner::Me), pass)
    }

    /// Cubeful MWC of side 0 with exact probabilities `p` at cube `cube` owned by `owner`.
    fn cubeful(&self, p: &[f64; 5], cube: u32, owner: CubeOwner, x: f64) -> f64 {
        let win = [p[0] - p[1], p[1] - p[2], p[2]];
        let lose = [1.0 - p[0] - p[3], p[3] - p[4], p[4]];
        let dead: f64 = (0..3)
            .map(|k| {
                let pts = cube * (k as u32 + 1);
                win[k].max(0.0) * self.after(0, 0, pts) + lose[k].max(0.0) * self.after(0, 1, pts)
            })
            .sum();
        let live = interpolate(&self.curve(0, cube, owner), p[0]);
        let blend = (1.0 - x) * dead + x * live;
        if x > 0.0 && owner == CubeOwner::Opponent && self.alive(1, cube) && self.m.away(0) <= cube
        {
            // The opponent's redouble is free: side 0's wins already win the match at `cube`,
            // so a redouble only raises the opponent's wins, and side 0 cannot use the cube
            // it would get. The opponent then redoubles at once (waiting can only let side 0
            // choose between taking and passing later, when that choice is worth more to it:
            // the value after the redouble is linear in the chances, the choice convex), and
            // the cube is worth to him more than the blend gives (at 2-away 4-away after a
            // double to 2: side 0's winning chance, not the blend's ~0.02 above it). A dead
            // cube (`x` = 0) stays dead.
            let take = self.cubeful(p, 2 * cube, CubeOwner::Me, x);
            let pass = self.after(0, 1, cube);
            return blend.min(take.max(pass));
        }
        blend
    }
}

/// The value of a piecewise-linear curve (points sorted by x) at `x`.
fn interpolate(pts: &[(f64, f64)], x: f64) -> f64 {
    for w in pts.windows(2) {
        let ((x0, y0), (x1, y1)) = (w[0], w[1]);
        if x <= x1 {
            if x1 - x0 <= EPS {
                return y1;
            }
            return y0 + (y1 - y0) * (x - x0) / (x1 - x0);
        }
    }
    pts.last().map_or(0.0, |p| p.1)
}

/// The smallest `x` where the curve reaches `y` (0 when it starts above, 1 when it never does).
fn inverse(pts: &[(f64, f64)], y: f64) -> f64 {
    if pts.first().is_some_and(|p| p.1 >= y) {
        return 0.0;
    }
    for w in pts.windows(2) {
        let ((x0, y0), (x1, y1)) = (w[0], w[1]);
        if y1 >= y && y1 > y0 {
            return x0 + (x1 - x0) * (y - y0) / (y1 - y0);
        }
    }
    1.0
}

/// The cubeful value for the player on roll with the cube as in `state` (money: per cube unit;
/// match: MWC), with cube efficiency `x` ([`Efficiency::for_state`]).
pub fn cubeful(p: &Probabilities, state: &CubeState, x: impl Into<Efficiency>) -> f64 {
    let x = x.into().for_state(state);
    let p = as_f64(p);
    match state.match_score {
        None => money_cubeful(&p, state.owner, state.jacoby, x),
        Some(m) => model(&p, m).cubeful(&p, state.value, state.owner, x),
    }
}

fn model(p: &[f64; 5], m: MatchScore) -> MatchModel {
    MatchModel {
        m,
        shares: [shares(p[0], p[1], p[2]), shares(1.0 - p[0], p[3], p[4])],
    }
}

/// The cube after the player on roll doubles and the opponent takes: twice the value, owned by
/// the opponent (the Jacoby rule no longer applies once the cube has been turned).
pub fn doubled(state: &CubeState) -> CubeState {
    CubeState {
        value: 2 * state.value,
        owner: CubeOwner::Opponent,
        jacoby: false,
        ..*state
    }
}

/// The same cube seen by the other player (owner and score swapped).
pub fn flipped(state: &CubeState) -> CubeState {
    CubeState {
        owner: match state.owner {
            CubeOwner::Centred => CubeOwner::Centred,
            CubeOwner::Me => CubeOwner::Opponent,
            CubeOwner::Opponent => CubeOwner::Me,
        },
        match_score: state.match_score.map(|m| MatchScore {
            score: [m.score[1], m.score[0]],
            ..m
        }),
        ..*state
    }
}

/// MWC of the player on roll (the side whose score comes first in `m`) after it (`won`) or
/// its opponent wins `points` this game.
pub(crate) fn mwc_after(m: &MatchScore, won: bool, points: u32) -> f64 {
    met::equity_after(m.length, m.score, m.crawford, usize::from(!won), points, 0).unwrap_or(0.5)
}

/// The value for the player on roll of a double that is passed: money, +1 (per cube unit);
/// match, the MWC after winning the cube's value.
pub fn double_pass(state: &CubeState) -> f64 {
    match state.match_score {
        None => 1.0,
        Some(m) => mwc_after(&m, true, state.value),
    }
}

/// A cubeful value (money: per cube unit; match: MWC) as a normalised equity, +1 for winning
/// and −1 for losing the cube's value as a single game (money: unchanged). Monotone, so it
/// ranks plays the way the value does, and thresholds keep their money-equity meaning.
pub fn normalised(value: f64, state: &CubeState) -> f64 {
    match state.match_score {
        None => value,
        Some(m) => {
            let (w, l) = (
                mwc_after(&m, true, state.value),
                mwc_after(&m, false, state.value),
            );
            if w - l <= EPS {
                0.0
            } else {
                2.0 * (value - l) / (w - l) - 1.0
            }
        }
    }
}

/// The decision from the doubler's three values: no double `nd`, double/take `dt` and
/// double/pass `dp` (money: per current cube unit; match: MWC), when the rules let it double
/// (`may_double`). Double iff `min(DT, DP) > ND`; the receiver takes iff `DT ≤ DP`.
pub fn decision(nd: f64, dt: f64, dp: f64, may_double: bool) -> CubeDecision {
    let take = dt <= dp;
    let action = if !may_double {
        CubeAction::NoDouble
    } else if nd >= dt.min(dp) {
        if take {
            CubeAction::NoDouble
        } else {
            CubeAction::TooGood
        }
    } else if take {
        CubeAction::DoubleTake
    } else {
        CubeAction::DoublePass
    };
    CubeDecision {
        no_double: nd,
        double_take: dt,
        double_pass: dp,
        may_double,
        action,
        take,
    }
}

/// The doubler's value of a double that is taken, from `doubled`, the value of the doubled
/// state ([`doubled`]) for the player on roll: money, twice it (values are per cube unit, and
/// the cube is now twice the current one); match, the MWC itself.
pub fn double_take(doubled: f64, state: &CubeState) -> f64 {
    match state.match_score {
        None => 2.0 * doubled,
        Some(_) => doubled,
    }
}

/// The cube decision of the player on roll with cubeless probabilities `p` (its own view,
/// before rolling), the cube as in `state`, cube efficiency `x`.
pub fn decide(p: &Probabilities, state: &CubeState, x: impl Into<Efficiency>) -> CubeDecision {
    let x = x.into();
    let nd = cubeful(p, state, x);
    let dt = double_take(cubeful(p, &doubled(state), x), state);
    decision(nd, dt, double_pass(state), state.may_double())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No gammons: the doubler wins with probability `p`.
    fn plain(p: f64) -> Probabilities {
        [p as f32, 0.0, 0.0, 0.0, 0.0]
    }

    /// Chances with a gammon in `won` of the wins and in `lost` of the losses.
    fn with_gammons(won: f64, lost: f64) -> impl Fn(f64) -> Probabilities {
        move |p| {
            [
                p as f32,
                (won * p) as f32,
                0.0,
                (lost * (1.0 - p)) as f32,
                0.0,
            ]
        }
    }

    /// The receiver's take point (its own win chance) by bisection on the doubler's `DT = DP`.
    fn take_point(state: &CubeState, x: f64, probs: impl Fn(f64) -> Probabilities) -> f64 {
        let (mut lo, mut hi) = (0.0f64, 1.0f64); // doubler's win chance
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            if decide(&probs(mid), state, x).take {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        1.0 - 0.5 * (lo + hi)
    }

    #[test]
    fn money_take_points_without_gammons() {
        let s = CubeState::money();
        let tp = |x| take_point(&s, x, plain);
        assert!((tp(0.0) - 0.25).abs() < 1e-5, "dead cube {}", tp(0.0));
        assert!((tp(1.0) - 0.20).abs() < 1e-5, "live cube {}", tp(1.0));
        let janowski = 0.5 / (2.0 + 0.5 * 0.68);
        assert!((tp(0.68) - janowski).abs() < 1e-5, "{}", tp(0.68));
        assert!((janowski - 0.2137).abs() < 1e-4);
    }

    #[test]
    fn money_take_point_with_gammons_is_janowskis_closed_form() {
        // The doubler wins a gammon in 30% of its wins and loses one in 20% of its losses, so
        // the receiver's average win W' = 1.2 and average loss L' = 1.3.
        let probs = with_gammons(0.3, 0.2);
        let s = CubeState::money();
        for x in [0.0, 0.5, 0.68, 1.0] {
            let expect = (1.3 - 0.5) / (1.2 + 1.3 + 0.5 * x);
            let got = take_point(&s, x, &probs);
            assert!((got - expect).abs() < 1e-4, "x {x}: {got} vs {expect}");
        }
    }

    #[test]
    fn money_decisions() {
        let s = CubeState::money();
        let x = DEFAULT_CUBE_EFFICIENCY;
        // Without gammons at x = 0.68 the initial double starts where
        // (1-x)(2p-1) + x(-1 + (p - 0.2)/0.3) = 2((2 + x/2)p - 1 - x/2), i.e. p = 0.6917.
        let nd = |p: f64| (1.0 - x) * (2.0 * p - 1.0) + x * (-1.0 + (p - 0.2) / 0.3);
        let dt = |p: f64| 2.0 * ((2.0 + 0.5 * x) * p - 1.0 - 0.5 * x);
        let d = decide(&plain(0.6), &s, x);
        assert!((d.no_double - nd(0.6)).abs() < 1e-6);
        assert!((d.double_take - dt(0.6)).abs() < 1e-6);
        assert_eq!(d.double_pass, 1.0);
        assert_eq!(d.action, CubeAction::NoDouble);
        assert!(d.take);
        assert_eq!(decide(&plain(0.68), &s, x).action, CubeAction::NoDouble);
        assert_eq!(decide(&plain(0.70), &s, x).action, CubeAction::DoubleTake);
        assert_eq!(decide(&plain(0.80), &s, x).action, CubeAction::DoublePass);
        assert!(!decide(&plain(0.80), &s, x).take);
        // Big gammon chances: too good to double.
        let g = decide(&[0.9, 0.7, 0.05, 0.0, 0.0], &s, x);
        assert_eq!(g.action, CubeAction::TooGood);
        assert!(g.no_double > 1.0);
        // The cube owned by the opponent cannot be doubled; an owned one can be redoubled.
        let opp = CubeState {
            owner: CubeOwner::Opponent,
            ..s
        };
        assert!(!decide(&plain(0.9), &opp, x).may_double);
        assert_eq!(decide(&plain(0.9), &opp, x).action, CubeAction::NoDouble);
        let mine = CubeState {
            owner: CubeOwner::Me,
            value: 2,
            ..s
        };
        assert_eq!(decide(&plain(0.70), &mine, x).action, CubeAction::NoDouble);
        assert_eq!(
            decide(&plain(0.75), &mine, x).action,
            CubeAction::DoubleTake
        );
        // Owning the cube is worth more than a centred one, which is worth more than none.
        let p = plain(0.55);
        let e = |owner| cubeful(&p, &CubeState { owner, ..s }, x);
        assert!(e(CubeOwner::Me) > e(CubeOwner::Centred));
        assert!(e(CubeOwner::Centred) > e(CubeOwner::Opponent));
        // Jacoby: gammons do not count with a centred cube.
        let j = CubeState { jacoby: true, ..s };
        let gp = [0.6, 0.3, 0.0, 0.0, 0.0];
        assert!(cubeful(&gp, &j, 0.0) < cubeful(&gp, &s, 0.0));
        assert!((cubeful(&gp, &j, 0.0) - 0.2).abs() < 1e-6);
    }

    fn at(length: u32, score: [u32; 2], crawford: bool) -> CubeState {
        CubeState {
            value: 1,
            owner: CubeOwner::Centred,
            match_score: Some(MatchScore {
                length,
                score,
                crawford,
            }),
            jacoby: false,
        }
    }

    #[test]
    fn two_away_two_away_uses_the_met() {
        let s = at(2, [0, 0], false);
        // After a take the cube (2) decides the match: dead for both sides, so the take point
        // is the MWC of 2-away against 1-away in the Crawford game.
        let crawford_trailer = met::match_equity(2, 1, false).unwrap();
        assert!((crawford_trailer - 0.32264).abs() < 1e-9);
        for x in [0.0, 0.68, 1.0] {
            let tp = take_point(&s, x, plain);
            assert!((tp - crawford_trailer).abs() < 1e-5, "x {x}: {tp}");
        }
        let d = decide(&plain(0.6), &s, 0.68);
        assert!((d.double_take - 0.6).abs() < 1e-6);
        assert!((d.double_pass - (1.0 - crawford_trailer)).abs() < 1e-9);
        assert_eq!(d.action, CubeAction::DoubleTake);
        assert_eq!(decide(&plain(0.7), &s, 0.68).action, CubeAction::DoublePass);
        // Gammons do not count once the cube wins the match: take point unchanged.
        let gammons = with_gammons(0.4, 0.4);
        assert!((take_point(&s, 0.68, gammons) - crawford_trailer).abs() < 1e-5);
    }

    #[test]
    fn crawford_and_dead_cubes() {
        // The Crawford game: no cube for anyone.
        let c = at(5, [4, 2], true);
        assert!(!c.may_double());
        assert_eq!(decide(&plain(0.9), &c, 0.68).action, CubeAction::NoDouble);
        // A cube of 2 already wins a 2-away player the match: dead.
        let dead = CubeState {
            value: 2,
            owner: CubeOwner::Me,
            ..at(5, [3, 0], false)
        };
        assert!(!dead.may_double());
        // Post-Crawford the leader (1-away) gains nothing by doubling.
        let leader = at(5, [4, 2], false);
        assert!(!leader.may_double());
    }

    #[test]
    fn post_crawford_trailer_doubles_at_once() {
        // 2-away against 1-away after the Crawford game: double immediately; the leader passes
        // only when the trailer is a big favourite (a 2-cube decides the match, a pass leaves
        // double match point).
        let s = at(5, [3, 4], false);
        for p in [0.3, 0.45] {
            let d = decide(&plain(p), &s, 0.68);
            assert_eq!(d.action, CubeAction::DoubleTake, "p {p}");
            assert!((d.double_take - p).abs() < 1e-6);
            assert!((d.double_pass - 0.5).abs() < 1e-9);
        }
        assert_eq!(decide(&plain(0.6), &s, 0.68).action, CubeAction::DoublePass);
        // The leader, doubled: take with 60%, pass with 40%.
        assert!(decide(&plain(0.4), &s, 0.68).take);
        assert!(!decide(&plain(0.6), &s, 0.68).take);
    }

    /// The receiver's dead-cube take point straight from the MET, independently of the model:
    /// the doubler `d` away and the receiver `t` away; after a take the game is for 2 points
    /// and the cube is dead, after a pass the doubler has 1 more point. `post` marks a
    /// post-Crawford game (else the next game is the Crawford game when a side reaches 1-away).
    fn met_dead_take_point(d: u32, t: u32, post: bool) -> f64 {
        let me = |ta: u32, da: u32| met::match_equity(ta, da, post).unwrap();
        let win2 = me(t.saturating_sub(2), d);
        let lose2 = me(t, d.saturating_sub(2));
        let pass = me(t, d - 1);
        (pass - lose2) / (win2 - lose2)
    }

    #[test]
    fn dead_cube_take_points_follow_the_met() {
        // (doubler away, receiver away, post-Crawford) in a match to 7.
        let cases = [
            (7, 7, false),
            (5, 5, false),
            (3, 3, false),
            (2, 2, false),
            (3, 5, false),
            (5, 3, false),
            (2, 4, false),
            (4, 2, false),
            (2, 1, true),
            (3, 1, true),
            (4, 1, true),
        ];
        for (d, t, post) in cases {
            let s = at(7, [7 - d, 7 - t], false);
            let expect = met_dead_take_point(d, t, post);
            let got = take_point(&s, 0.0, plain);
            assert!(
                (got - expect).abs() < 1e-5,
                "{d}-away doubling {t}-away: {got} vs MET {expect}"
            );
            // A live cube is worth something to its owner: the receiver takes at least as
            // wide; exactly as wide when the cube it would own is dead (it is `t`-away and
            // the cube at 2 already wins it the match, or post-Crawford).
            let live = take_point(&s, 1.0, plain);
            if t <= 2 {
                assert!((live - got).abs() < 1e-5, "{d}a {t}a: {live} vs {got}");
            } else {
                assert!(live < got - 1e-4, "{d}a {t}a: live {live} dead {got}");
            }
        }
    }

    #[test]
    fn reference_take_points() {
        // 2-away 2-away: the cube decides the match, so the take point is the MWC of
        // 2-away 1-away Crawford (Kazaross-XG2: 32.26%), for any cube efficiency.
        let two = at(7, [5, 5], false);
        for x in [0.0, 0.68, 1.0] {
            assert!((take_point(&two, x, plain) - 0.32264).abs() < 1e-4);
        }
        // Post-Crawford, the trailer 2-away: a pass leaves double match point (50%) and a
        // take plays the match on this game, so the leader takes with exactly 50% (the free
        // drop below it), gammons or not.
        let free = at(7, [5, 6], false);
        for x in [0.0, 0.68, 1.0] {
            assert!((take_point(&free, x, plain) - 0.5).abs() < 1e-5);
            assert!((take_point(&free, x, with_gammons(0.3, 0.3)) - 0.5).abs() < 1e-5);
        }
        // 4-away (doubler) 2-away (receiver): the receiver's 2-cube is dead, its gammons
        // count nothing after the take (2 points win it the match) but the doubler's count
        // double: a gammonish doubler needs a bigger take.
        let s = at(7, [3, 5], false);
        let plain_tp = take_point(&s, 0.68, plain);
        assert!((plain_tp - met_dead_take_point(4, 2, false)).abs() < 1e-5);
        assert!(take_point(&s, 0.68, with_gammons(0.3, 0.0)) > plain_tp + 0.01);
    }

    /// 2-away (doubler) 4-away (receiver): after the take the doubler's wins already win the
    /// match, so the receiver redoubles to 4 at once (it only raises his wins) and the doubler,
    /// a favourite, takes: every game decides the match. Double/take is worth the doubler its
    /// winning chance exactly, gammons or not, and the receiver takes down to the MWC of
    /// 4-away 1-away in the Crawford game (Kazaross-XG2 18.56%), for any live cube; the blend
    /// of a dead and a live cube gave the doubler about 0.02 more and the receiver a narrower
    /// take (about 17%). A dead cube (x = 0) keeps the dead take point.
    #[test]
    fn free_redouble_after_a_double_at_two_away_four_away() {
        let s = at(7, [5, 3], false);
        let crawford = met::match_equity(4, 1, false).unwrap();
        assert!((crawford - 0.18564).abs() < 1e-9);
        for x in [0.5, 0.68, 1.0] {
            for p in [0.6, 0.75, 0.8, 0.85] {
                for probs in [
                    plain(p),
                    with_gammons(0.4, 0.0)(p),
                    with_gammons(0.0, 0.3)(p),
                ] {
                    let d = decide(&probs, &s, x);
                    assert!((d.double_take - p).abs() < 1e-6, "x {x} p {p}: {d:?}");
                }
            }
            let tp = take_point(&s, x, plain);
            assert!((tp - crawford).abs() < 1e-5, "x {x}: {tp}");
            assert!((take_point(&s, x, with_gammons(0.4, 0.0)) - crawford).abs() < 1e-5);
        }
        let dead = take_point(&s, 0.0, plain);
        assert!((dead - met_dead_take_point(2, 4, false)).abs() < 1e-5);
        assert!(dead > crawford + 0.01, "dead {dead}");
    }

    #[test]
    fn bearoff_efficiency() {
        // The player on roll: k checkers on its 6-point, the rest on its 1-point.
        let bearoff = |pips_on_six: u8| {
            let mut a = [0u8; 25];
            let mut b = [0u8; 25];
            a[5] = pips_on_six; // each checker on the 6-point: 6 pips
            a[0] = 15 - pips_on_six;
            b[0] = 15;
            Position::from_counts(a, b).unwrap()
        };
        let short = bearoff(1); // 14 on the 1-point and 1 on the 6: 20 pips
        assert!(is_bearoff(&short));
        assert_eq!(short.pips(Side::OnRoll), 20);
        assert!(!is_bearoff(&Position::START));
        assert_eq!(efficiency(&Position::START, 0.68), Efficiency::flat(0.68));
        let two = bearoff(0); // 15 pips
        assert_eq!(
            efficiency(&two, 0.68),
            Efficiency {
                own: BEAROFF_CUBE_EFFICIENCY,
                theirs: BEAROFF_OPPONENT_CUBE_EFFICIENCY
            }
        );
        assert_eq!(
            efficiency(&two, 0.2),
            Efficiency::flat(0.2),
            "never above the advisor's"
        );
        // 20 pips: a third of the way from 16 to 28.
        let third = |short: f64| short + (0.68 - short) * (4.0 / 12.0);
        let e = efficiency(&short, 0.68);
        assert!((e.own - third(BEAROFF_CUBE_EFFICIENCY)).abs() < 1e-12);
        assert!((e.theirs - third(BEAROFF_OPPONENT_CUBE_EFFICIENCY)).abs() < 1e-12);
        // 15 + 5 * 3 = 30 pips and more: the advisor's.
        assert_eq!(efficiency(&bearoff(3), 0.68), Efficiency::flat(0.68));
        // A state takes its owner's efficiency: the opponent's cube the lower one.
        assert_eq!(e.for_owner(CubeOwner::Centred), e.own);
        assert_eq!(e.for_owner(CubeOwner::Me), e.own);
        assert_eq!(e.for_owner(CubeOwner::Opponent), e.theirs);
        let p = [0.7f32, 0.0, 0.0, 0.0, 0.0];
        let theirs = CubeState {
            value: 2,
            owner: CubeOwner::Opponent,
            ..CubeState::money()
        };
        assert_eq!(cubeful(&p, &theirs, e), cubeful(&p, &theirs, e.theirs));
        assert_eq!(
            cubeful(&p, &CubeState::money(), e),
            cubeful(&p, &CubeState::money(), e.own)
        );
        assert!(cubeful(&p, &theirs, e) > cubeful(&p, &theirs, e.own));
        // At a match score every owner takes the centred cube's.
        let matched = CubeState {
            match_score: Some(MatchScore {
                length: 7,
                score: [0, 0],
                crawford: false,
            }),
            ..theirs
        };
        assert_eq!(e.for_state(&matched), e.own);
        assert_eq!(cubeful(&p, &matched, e), cubeful(&p, &matched, e.own));
        // A race with a checker outside a home board is not a bear-off.
        let mut a = [0u8; 25];
        let mut b = [0u8; 25];
        a[0] = 14;
        a[6] = 1;
        b[0] = 15;
        assert!(!is_bearoff(&Position::from_counts(a, b).unwrap()));
    }

    #[test]
    fn long_match_is_close_to_money() {
        // At 25-away 25-away the take point without gammons is near the money one.
        let s = at(25, [0, 0], false);
        let tp = take_point(&s, 0.68, plain);
        assert!((tp - 0.2137).abs() < 0.03, "{tp}");
    }

    #[test]
    fn curves_and_inverse() {
        let pts = [(0.0, -2.0), (0.25, -1.0), (1.0, 2.0)];
        assert!((interpolate(&pts, 0.125) + 1.5).abs() < 1e-12);
        assert!((inverse(&pts, -1.5) - 0.125).abs() < 1e-12);
        assert_eq!(inverse(&pts, -3.0), 0.0);
        assert_eq!(inverse(&pts, 3.0), 1.0);
        assert_eq!(shares(0.0, 0.0, 0.0), [1.0, 0.0, 0.0]);
    }

    #[test]
    fn cube_state_for_a_player() {
        // Player 1 on roll, owning a 2-cube, trailing 1-3 in a match to 7.
        let s = CubeState::for_player(1, 2, Some(1), 7, [3, 1], false, true);
        assert_eq!(s.owner, CubeOwner::Me);
        assert_eq!(
            s.match_score,
            Some(MatchScore {
                length: 7,
                score: [1, 3],
                crawford: false
            })
        );
        assert!(!s.jacoby, "no Jacoby rule in matches");
        assert_eq!(
            CubeState::for_player(0, 2, Some(1), 0, [0, 0], false, true).owner,
            CubeOwner::Opponent
        );
        assert!(CubeState::for_player(0, 1, None, 0, [0, 0], false, true).jacoby);
        // Longer than the match equity table: the money model.
        let long = CubeState::for_player(0, 1, None, MAX_MATCH_LENGTH + 6, [2, 5], false, false);
        assert_eq!((long.owner, long.match_score), (CubeOwner::Centred, None));
    }
}
