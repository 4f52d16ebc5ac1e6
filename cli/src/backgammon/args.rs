//! The arguments shared by the backgammon commands, and turning them into engine values: the
//! position (Position ID, gnubg ID or XGID) with its match state, the dice, the search depth and
//! threads, and the evaluator (weights and bearoff database). A leaf: it uses no sibling module
//! but the bearoff cache.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Args as ClapArgs;
use tabula_engine::backgammon::{Dice, MatchId, Position, Xgid};
use tabula_gammon::advisor::{CubeRollouts, CUBE_ROLLOUT_TRIALS, MAX_CUBE_ROLLOUT_TRIALS};
use tabula_gammon::bearoff::RaceDb;
use tabula_gammon::search::MAX_PLIES;
use tabula_gammon::{weights, Evaluator, NetFile};

use crate::error::{CliError, CliResult};

/// The position options of `show`, `moves`, `play` and `hint`.
#[derive(ClapArgs, Debug)]
pub(crate) struct Common {
    /// gnubg Position ID (`4HPwATDgc/ABMA`), gnubg ID (`<position>:<match>`) or XGID
    /// (default: the opening position).
    #[arg(
        long,
        short,
        default_value = "4HPwATDgc/ABMA",
        allow_hyphen_values = true
    )]
    pub(crate) position: String,
    /// gnubg Match ID (`cAkAAAAAAAAA`) for the match state.
    #[arg(long = "match-id", short = 'm')]
    pub(crate) match_id: Option<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub(crate) json: bool,
}

/// A position with the match state that came with it, if any.
pub(crate) struct Input {
    pub(crate) position: Position,
    pub(crate) match_id: Option<MatchId>,
}

impl Common {
    /// The position and match state given, checked.
    pub(crate) fn input(&self) -> Result<Input, CliError> {
        let text = self.position.trim();
        let (position, mut match_id) = if text.starts_with("XGID=") || text.len() > 40 {
            let x =
                Xgid::parse(text).map_err(|e| CliError::bad_input(format!("invalid XGID: {e}")))?;
            (x.position, Some(x.match_id()))
        } else if let Some((p, m)) = text.split_once(':') {
            (parse_position(p)?, Some(parse_match_id(m)?))
        } else {
            (parse_position(text)?, None)
        };
        if let Some(m) = &self.match_id {
            match_id = Some(parse_match_id(m)?);
        }
        Ok(Input { position, match_id })
    }
}

fn parse_position(id: &str) -> Result<Position, CliError> {
    Position::from_position_id(id)
        .map_err(|e| CliError::bad_input(format!("invalid Position ID {id:?}: {e}")))
}

fn parse_match_id(id: &str) -> Result<MatchId, CliError> {
    MatchId::decode(id).map_err(|e| CliError::bad_input(format!("invalid Match ID {id:?}: {e}")))
}

/// The dice of `--dice`, else those rolled in the XGID or Match ID; an error without either.
pub(crate) fn dice_for(arg: &Option<String>, input: &Input) -> Result<Dice, CliError> {
    match (arg, input.match_id) {
        (Some(d), _) => d
            .parse()
            .map_err(|e| CliError::bad_input(format!("invalid dice: {e}"))),
        (None, Some(m)) if m.dice.0 > 0 => Dice::new(m.dice.0, m.dice.1)
            .map_err(|e| CliError::bad_input(format!("invalid dice: {e}"))),
        _ => Err(CliError::bad_input("no dice: give --dice, e.g. --dice 31")),
    }
}

/// The dice when some were given (`--dice`, or rolled in the XGID or Match ID); `None` before
/// the roll.
pub(crate) fn rolled_dice(arg: &Option<String>, input: &Input) -> Result<Option<Dice>, CliError> {
    let rolled = arg.is_some() || input.match_id.is_some_and(|m| m.dice.0 > 0);
    rolled.then(|| dice_for(arg, input)).transpose()
}

/// `--cube-rollouts` of `hint`, `play` and `external`.
#[derive(ClapArgs, Debug)]
pub(crate) struct CubeRolloutArgs {
    /// Trials of the rollout that decides the cube in a back game (the player who would take
    /// holds two points or more in the doubler's home board) at 2 plies or more, instead of
    /// the search (at most 11664); 0: the search decides every cube.
    #[arg(
        long = "cube-rollouts",
        default_value_t = CUBE_ROLLOUT_TRIALS,
        value_parser = clap::value_parser!(u64).range(0..=MAX_CUBE_ROLLOUT_TRIALS)
    )]
    cube_rollouts: u64,
}

impl CubeRolloutArgs {
    /// The advisor's cube rollouts at `plies` ([`CubeRollouts::for_depth`]).
    pub(crate) fn at(&self, plies: u8) -> Option<CubeRollouts> {
        CubeRollouts::for_depth(plies, self.cube_rollouts)
    }
}

/// `--plies` of the commands that search: at most [`MAX_PLIES`].
pub(crate) fn check_plies(plies: u8) -> CliResult {
    if plies > MAX_PLIES {
        return Err(CliError::bad_input(format!(
            "--plies {plies}: at most {MAX_PLIES}"
        )));
    }
    Ok(())
}

/// Runs `f` on a pool of `threads` search threads (`--threads`, already checked by clap).
pub(crate) fn with_threads<R: Send>(
    threads: u64,
    f: impl FnOnce() -> R + Send,
) -> Result<R, CliError> {
    tabula_gammon::search::with_threads(threads as usize, f)
        .map_err(|e| CliError::internal(e.to_string()).with_source(e))
}

/// The evaluator options of `hint`, `external`, `play`, `rollout`, `label`, and of the servers
/// (`engine`, `serve`).
#[derive(ClapArgs, Debug)]
pub(crate) struct EvaluatorArgs {
    /// Weights file (default: the shipped weights). It decides the cube too unless
    /// --cube-weights is given.
    #[arg(long)]
    weights: Option<PathBuf>,
    /// Weights file for the cube decisions alone: every double, take and pass (and a cubeful
    /// rollout's cube turns) comes from its nets, the plays from --weights' (default: without
    /// --weights, the shipped cube weights where the play nets see gammons won plus lost at
    /// 0.35 or more and the play nets elsewhere; with --weights, that file).
    #[arg(long = "cube-weights")]
    cube_weights: Option<PathBuf>,
    /// The one-sided bearoff database for exact bear-off probabilities instead of the race net,
    /// also in races where a side has at most 4 checkers left (`tabula tablebase build
    /// bearoff-os`; default: bearoff-os.tdb in $TABULA_CACHE_DIR, $XDG_CACHE_HOME/tabula or
    /// ~/.cache/tabula, built there on first use).
    #[arg(long)]
    bearoff: Option<PathBuf>,
    /// The net alone, also where both sides bear off (no exact race endings).
    #[arg(long = "no-bearoff", conflicts_with = "bearoff")]
    no_bearoff: bool,
    /// A one-sided race database (`tabula tablebase build race-os`): exact one-sided races
    /// also where a side still has checkers on its 7- to 10-point (or the points the file
    /// covers), instead of the race net (default: race-os.tdb in the cache directory of
    /// --bearoff when `tablebase build race-os --install` put one there, else none).
    #[arg(long = "race-db", conflicts_with = "no_bearoff")]
    race_db: Option<PathBuf>,
    /// No race database, not even an installed one: the race net values every race that the
    /// bearoff databases do not.
    #[arg(long = "no-race-db", conflicts_with = "race_db")]
    no_race_db: bool,
    /// Value every play at a search's last ply with the full nets. By default (the shipped
    /// nets) a small pruning net ranks the plays of each roll first and only its best 6 are
    /// valued in full: 2-ply plays about 3 times as fast, judged as good (docs/results.md,
    /// "The last ply pruned"). Cube decisions and rollouts value every play either way;
    /// weights files have no pruning net.
    #[arg(long = "no-prune")]
    no_prune: bool,
}

impl EvaluatorArgs {
    /// The net, with exact bear-offs from `--bearoff FILE` (a bad file is an error), else from
    /// the cached database, unless `--no-bearoff`; exact races from `--race-db FILE` (a bad
    /// file is an error), else from an installed race database, unless `--no-race-db`.
    pub(crate) fn load(&self) -> Result<Cow<'static, Evaluator>, CliError> {
        let mut eval = load_net(self.weights.as_deref())?;
        if self.no_prune {
            eval = Cow::Owned(eval.into_owned().without_pruner());
        }
        if let Some(path) = &self.cube_weights {
            let cube = load_weights(path, "cube weights")?;
            eval = Cow::Owned(eval.into_owned().with_cube(cube));
        }
        if self.no_bearoff {
            return Ok(eval);
        }
        let table = match &self.bearoff {
            Some(p) => load_bearoff(p)?,
            None => crate::backgammon::bearoff::cached(),
        };
        let race = match (&self.race_db, self.no_race_db) {
            (Some(path), _) => Some(RaceDb::ready(load_race_db(path)?)),
            (None, true) => None,
            (None, false) => crate::backgammon::bearoff::cached_race(),
        };
        Ok(Cow::Owned(
            eval.into_owned()
                .with_bearoff_tables(Arc::new(table), race.map(Arc::new)),
        ))
    }

    /// [`EvaluatorArgs::load`], for the life of the process: the servers' sessions and
    /// requests share it (the nets and tables are read once, when the server starts: an
    /// installed race database too, which a one-shot command opens only when a race needs it,
    /// so that a server says at once when it does not open and no request waits for it).
    pub(crate) fn load_for_process(&self) -> Result<&'static Evaluator, CliError> {
        let eval = self.load()?;
        if let Some(race) = eval.bearoff.as_ref().and_then(|b| b.race.as_ref()) {
            race.get();
        }
        Ok(match eval {
            Cow::Borrowed(eval) => eval,
            Cow::Owned(eval) => Box::leak(Box::new(eval)),
        })
    }
}

/// The nets of the weights file `p`; an error names it as `what` (`weights`, `cube weights`).
fn load_weights(p: &Path, what: &str) -> Result<Evaluator, CliError> {
    NetFile::load(p).map(|f| f.evaluator).map_err(|e| {
        let message = format!("{what} {}: {e}", p.display());
        if e.is_bad_input() {
            CliError::bad_input(message)
        } else {
            CliError::io(message)
        }
    })
}

/// The race database in `path` (`--race-db FILE`), opened: its probabilities stay in the file
/// and are read as races need them. A missing or damaged file is an error naming it.
pub(crate) fn load_race_db(path: &Path) -> Result<tabula_tablebase::bearoff::RaceTable, CliError> {
    tabula_tablebase::bearoff::RaceTable::open(path)
        .map_err(|e| crate::common::store_error("race database", e))
}

/// The one-sided bearoff database in `path` (`--bearoff FILE`); a missing or damaged file is
/// an error naming it.
pub(crate) fn load_bearoff(path: &Path) -> Result<tabula_tablebase::bearoff::OneSided, CliError> {
    tabula_tablebase::bearoff::OneSided::load(path)
        .map_err(|e| crate::common::store_error("bearoff database", e))
}

/// The net alone: from `--weights FILE` (its nets for the plays and the cube), or the shipped
/// one (with its cube nets, [`weights::shipped`]).
pub(crate) fn load_net(path: Option<&Path>) -> Result<Cow<'static, Evaluator>, CliError> {
    match path {
        Some(p) => load_weights(p, "weights").map(Cow::Owned),
        None => weights::shipped()
            .map(Cow::Borrowed)
            .map_err(|e| CliError::internal(format!("built-in weights: {e}"))),
    }
}
