//! Backgammon evaluation and search: a small neural network trained by self-play TD(λ), and an
//! expectimax search over the 21 rolls on top of it.
//!
//! - [`inputs`]: the network inputs (TD-Gammon style: four units per point and side, bar, off,
//!   pips) and the contact/race classification.
//! - [`net`]: the dense one-hidden-layer sigmoid net, the five output probabilities and the
//!   [`Evaluator`] (contact, crashed and race nets, exact scores for finished games, and
//!   optionally nets of its own for the cube decisions).
//! - [`weights`]: the `.tnet` weights files (a `tabula-store` container: shapes, training state,
//!   little-endian f32) and the shipped weights, embedded with `include_bytes!`: the play nets
//!   (`data/backgammon.tnet`) and the cube nets (`data/cube.tnet`), together
//!   [`weights::shipped`].
//! - [`train`]: deterministic single-threaded self-play TD(λ) with eligibility traces.
//! - [`label`]: training data made by Tabula itself (noisy self-play positions labelled by a
//!   deeper search or a rollout), in chunked, checked, resumable files.
//! - [`supervised`]: SGD on cross-entropy against such labels, and widening a net.
//! - [`bearoff`]: exact race endings (bear-offs from the one-sided bearoff database, and races
//!   where a side has only a few checkers left), used by the [`Evaluator`] when one is attached.
//! - [`baseline`]: simple opponents (pip-count racer, random) and seeded games against them.
//! - [`prune`]: the small net that pre-ranks the plays at a search's last ply (gnubg's pruning
//!   nets), shipped in `data/prune.tnet`.
//! - [`search`]: 0- to 3-ply expectimax with move filtering, rayon over the rolls (results
//!   identical for any thread count) and a position cache: the backgammon instance of
//!   `tabula_solver::expectimax`.
//! - [`cube`]: cube decisions (Janowski's model for money, the match equity table in matches).
//! - [`cubeful`]: cubeful n-ply evaluation (gnubg style): the cube valued at every node of the
//!   search, each side's cube action counted; the advisor's cube decisions at 1 ply and more.
//! - [`rollout`]: Monte-Carlo rollouts of a position or of the plays of a roll, with luck
//!   correction, stratified first rolls and standard errors, deterministic per seed.
//! - [`advisor`]: what a user of the engine asks: given the match state, a position and maybe
//!   the dice, the cube action, take or drop, and the ranked plays.
//!
//! **Perspective.** Every probability vector is for the player on roll of the position it
//! describes, in the order `[win, win gammon, win backgammon, lose gammon, lose backgammon]`
//! (gammon and backgammon counts are cumulative: a backgammon is also a gammon). A play is
//! scored by evaluating its result (opponent on roll) and [`invert`]ing it.

pub mod advisor;
pub mod baseline;
pub mod bearoff;
pub mod cube;
pub mod cubeful;
pub mod inputs;
pub mod label;
pub mod net;
pub mod prune;
pub mod rng;
pub mod rollout;
pub mod search;
pub mod supervised;
pub mod train;
pub mod weights;

pub use advisor::{Advice, Advisor, CubeAdvice};
pub use net::{equity, invert, Evaluator, Net, Probabilities};
pub use rng::Rng;
pub use search::{RankedPlay, SearchOptions, Searcher};
pub use weights::{NetFile, ShapeError, WeightsError};
