//! The rules-side interface of retrograde analysis: what a game gives a tablebase builder.
//!
//! Modelled on GamesmanOne's tier API, with its split into required and optional functions:
//!
//! - **Required**: an index space ([`Retrograde::size`]) with [`Retrograde::unrank`] and
//!   [`Retrograde::rank`] between indices and canonical positions, the end of the game
//!   ([`Retrograde::primitive`]) and the children of a position ([`Retrograde::children`]).
//! - **Optional**: un-moves ([`Retrograde::parents`]). A builder that has them propagates values
//!   backwards from decided positions (counters of undecided children); without them it must
//!   sweep the whole space until nothing changes, which is correct but slower.
//!
//! Symmetry is folded into ranking: `rank` canonicalises (two positions related by a symmetry
//! of the game get the same index) and `unrank` returns `None` for an index that names no
//! canonical legal position (a *hole*). Children and parents are given as indices, each
//! distinct index once, so that a builder can count undecided children and decrement the count
//! once per (parent, child) pair.
//!
//! Consistency contract, which every implementation's tests must check on random positions:
//! `rank(unrank(i)) == i` wherever `unrank(i)` is `Some`; for every `c` in `children(p)`,
//! `rank(p)` is in `parents(unrank(c))`; for every `q` in `parents(p)`, `rank(p)` is in
//! `children(unrank(q))`.
//!
//! Values are from the side to move: a primitive position is decided at distance 0.

/// A decided value at the end of the game, from the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// The side to move has won.
    Win,
    /// The side to move has lost.
    Loss,
    /// The game is drawn.
    Draw,
}

/// A game (under one fixed set of rules) that a retrograde builder can solve.
pub trait Retrograde: Sync {
    /// The positions ranked.
    type Position: Copy + Send + Sync;

    /// The number of indices: positions and holes. Valid indices are `0..size()`.
    fn size(&self) -> u64;

    /// The canonical position at `index`, or `None` when the index is a hole (no legal
    /// position, or a position that is not the canonical one of its class).
    fn unrank(&self, index: u64) -> Option<Self::Position>;

    /// The index of the canonical form of `pos` (any legal position, canonical or not).
    fn rank(&self, pos: &Self::Position) -> u64;

    /// `Some` when the game is over at `pos`: its value at distance 0 from the side to move.
    fn primitive(&self, pos: &Self::Position) -> Option<Outcome>;

    /// Appends the distinct indices of the positions one move from `pos` (nothing when
    /// `pos` is primitive).
    fn children(&self, pos: &Self::Position, out: &mut Vec<u64>);

    /// Whether [`Retrograde::parents`] is implemented.
    fn has_parents(&self) -> bool {
        false
    }

    /// Appends the distinct indices of the non-primitive positions with a move to `pos` (to
    /// any position of `pos`'s symmetry class). A builder calls it only when
    /// [`Retrograde::has_parents`] is true; the default appends nothing.
    fn parents(&self, pos: &Self::Position, out: &mut Vec<u64>) {
        let _ = (pos, out);
    }

    /// A stable description of the game and its rules for the file header, as `key=value`
    /// pairs joined by `;` (e.g. `game=pylos;board=4;rules=standard;takeback=optional`). A
    /// table built under one context is refused under any other.
    fn context(&self) -> String;
}
