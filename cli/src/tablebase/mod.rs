//! `tabula tablebase build|probe <db>`: the databases Tabula builds by retrograde analysis.
//!
//! - `bearoff-os`, `bearoff-ts` ([`bearoff`]): backgammon bearoff databases (seconds).
//! - `pylos` ([`pylos`]): Pylos solved strongly, one table per board and rule set.

mod bearoff;
pub mod pylos;

use clap::{Args as ClapArgs, Subcommand};

use std::path::Path;

use crate::error::{CliError, CliResult};

#[derive(ClapArgs, Debug)]
#[command(after_help = "\
Databases:
  bearoff-os  one-sided: up to 15 checkers on the 6 home points (54,264 boards), the
              distribution of the rolls to bear off all checkers and the first one
  bearoff-ts  two-sided: up to 6 checkers a side (924 x 924), the cubeless winning
              chances and equity (2 P(win) - 1) of the player on roll
  pylos       every Pylos position of one board and rule set: won, lost or drawn for the
              side to move, with the distance in plies under best play

A build keeps an existing file unless --replace is given. A bearoff board is six checker
counts, ace point first: --points 0,0,0,0,0,1 is one checker on the 6-point. Examples:
  tabula tablebase build bearoff-os
  tabula tablebase probe bearoff-os --points 0,0,0,0,0,15
  tabula tablebase probe bearoff-ts --points 0,0,0,0,0,2 --opponent 0,0,0,0,0,2 --json
  tabula tablebase probe bearoff-ts --position YAAAAAMAAAAAAA
  tabula tablebase build pylos --board 3 --rules standard --takeback optional
  tabula tablebase probe pylos --board 3 --rules standard --position '.../.../...|../..|. b'")]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Build a database (parallel, progress on stderr) and write it atomically.
    Build {
        #[command(subcommand)]
        db: BuildDb,
    },
    /// Look up a position in a database.
    Probe {
        #[command(subcommand)]
        db: ProbeDb,
    },
}

#[derive(Subcommand, Debug)]
enum BuildDb {
    /// One-sided bearoff (up to 15 checkers).
    #[command(name = "bearoff-os")]
    BearoffOs(bearoff::BuildArgs),
    /// Two-sided bearoff (up to 6 checkers a side).
    #[command(name = "bearoff-ts")]
    BearoffTs(bearoff::BuildArgs),
    /// One-sided race (up to 15 checkers on a side's first 10 points, or --points).
    #[command(name = "race-os")]
    RaceOs(bearoff::RaceBuildArgs),
    /// Pylos under one board and rule set, by retrograde analysis (resumable).
    Pylos(pylos::BuildArgs),
}

#[derive(Subcommand, Debug)]
enum ProbeDb {
    /// Mean and distribution of the rolls to bear off.
    #[command(name = "bearoff-os")]
    BearoffOs(bearoff::ProbeArgs),
    /// Winning chances of the player on roll.
    #[command(name = "bearoff-ts")]
    BearoffTs(bearoff::ProbeArgs),
    /// Each side's rolls to bear off in a race (--position).
    #[command(name = "race-os")]
    RaceOs(bearoff::ProbeArgs),
    /// A Pylos position's value and distance, and every move's.
    Pylos(pylos::ProbeArgs),
}

pub fn run(args: Args) -> CliResult {
    match args.command {
        Command::Build { db } => match db {
            BuildDb::BearoffOs(a) => bearoff::build(bearoff::Db::BearoffOs, a),
            BuildDb::BearoffTs(a) => bearoff::build(bearoff::Db::BearoffTs, a),
            BuildDb::RaceOs(a) => bearoff::build_race(a),
            BuildDb::Pylos(a) => pylos::build(a),
        },
        Command::Probe { db } => match db {
            ProbeDb::BearoffOs(a) => bearoff::probe(bearoff::Db::BearoffOs, a),
            ProbeDb::BearoffTs(a) => bearoff::probe(bearoff::Db::BearoffTs, a),
            ProbeDb::RaceOs(a) => bearoff::probe(bearoff::Db::RaceOs, a),
            ProbeDb::Pylos(a) => pylos::probe(a),
        },
    }
}

/// The messages of a checkpointed build (Pylos tables and the race database alike): stopped
/// with its work in `checkpoint`, asked to resume without one, or to start over one.
fn interrupted_into(checkpoint: &Path) -> CliError {
    CliError::interrupted(format!(
        "interrupted; the work so far is in {} (continue with --resume)",
        checkpoint.display()
    ))
}

/// See [`interrupted_into`].
fn nothing_to_resume(checkpoint: &Path) -> CliError {
    CliError::bad_input(format!(
        "nothing to resume: no checkpoint at {}",
        checkpoint.display()
    ))
}

/// See [`interrupted_into`].
fn checkpoint_in_the_way(checkpoint: &Path) -> CliError {
    CliError::bad_input(format!(
        "a checkpoint of an unfinished build is at {}: continue it with --resume, or delete it \
         to start over",
        checkpoint.display()
    ))
}
