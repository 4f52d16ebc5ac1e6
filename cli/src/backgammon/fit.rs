//! `tabula backgammon fit`: supervised training of the nets on label files made by `tabula
//! backgammon label` (see `tabula_gammon::supervised`), keeping the weights that fit a held-out
//! part of the labels best.

use crate::backgammon::train::weights_error;
use crate::common::{interrupt_flag, store_error};
use crate::error::{CliError, CliResult};
use clap::Args as ClapArgs;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::Instant;
use tabula_gammon::label::{Label, LabelFile};
use tabula_gammon::rollout::Mean;
use tabula_gammon::supervised::{
    choice_regrets, decision_groups, fit_epoch, fit_epoch_ranked, measure, ChoiceStats, FitStats,
};
use tabula_gammon::{weights, NetFile};
use tabula_store::{Existing, TargetLock};

#[derive(ClapArgs, Debug)]
pub struct FitArgs {
    /// Label files (`tabula backgammon label`), one or more.
    #[arg(long, required = true, num_args = 1..)]
    labels: Vec<PathBuf>,
    /// Label files trained on in full and never held out: an anchor that keeps the nets near
    /// what these labels say while the weights are chosen by how well they fit the held-out
    /// part of --labels alone (for example the 2-ply labels of the whole class beside a few
    /// rollout labels of hard positions).
    #[arg(long, num_args = 1..)]
    anchor: Vec<PathBuf>,
    /// The weights file to write: the nets that fit the held-out labels best, saved after each
    /// epoch that improves on them (refused if it exists, unless --force).
    #[arg(long)]
    out: PathBuf,
    /// Overwrite --out if it exists.
    #[arg(long)]
    force: bool,
    /// The weights to start from (default: the shipped weights).
    #[arg(long)]
    weights: Option<PathBuf>,
    /// Passes over the training labels.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    epochs: u32,
    /// Step size of the gradient descent.
    #[arg(long, default_value_t = 0.002)]
    alpha: f32,
    /// Halve the step size when the held-out fit has not improved for --patience epochs.
    #[arg(long)]
    anneal: bool,
    /// With --anneal: the epochs without improvement that halve the step size (then the count
    /// starts again).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    patience: u32,
    /// Hold out the labels of every K-th chunk of each file (chunk numbers K−1, 2K−1, …).
    #[arg(long = "hold-out", default_value_t = 10, value_parser = clap::value_parser!(u64).range(2..=1_000_000))]
    hold_out: u64,
    /// Widen the contact net to this many hidden units first (`--widen` says how the new
    /// units start; by default the net starts nearly as it was).
    #[arg(long = "contact-hidden")]
    contact_hidden: Option<usize>,
    /// The same for the race net.
    #[arg(long = "race-hidden")]
    race_hidden: Option<usize>,
    /// Give the weights a crashed net of their own (gnubg's crashed class: contact, and one
    /// side with at most 6 checkers in play beyond those piled on its ace and deuce points),
    /// starting as a copy of the contact net, so that the evaluator starts as it was; the
    /// crashed labels then train it alone. Weights that already have one keep it.
    #[arg(long = "crashed-net")]
    crashed_net: bool,
    /// Widen the crashed net to this many hidden units first (as --contact-hidden).
    #[arg(long = "crashed-hidden")]
    crashed_hidden: Option<usize>,
    /// How --contact-hidden, --race-hidden and --crashed-hidden add units: `split` (each new
    /// unit a copy of one of the strongest units, with a little noise, the two sharing its
    /// output weights: the net starts nearly as it was) or `zero` (new units with zero output
    /// weights: the net starts exactly as it was, but the new units barely learn).
    #[arg(long, value_enum, default_value_t = Widen::Split)]
    widen: Widen,
    /// Seed of the order of the labels in each epoch.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Weight of a second loss on the results of one decision (label files made with
    /// `label --siblings`): the squared error of each result's equity relative to the mean of
    /// its decision's results, so that the nets learn the differences their choices turn on.
    /// 0: the cross-entropy alone, each label on its own.
    #[arg(long, default_value_t = 0.0)]
    rank: f32,
    /// What makes the best weights: `equity` (the held-out labels' mean equity error) or
    /// `choices` (what the 0-ply choices among each held-out decision's results give away by
    /// their labels; files made with `label --siblings`).
    #[arg(long, value_enum, default_value_t = Select::Equity)]
    select: Select,
}

/// The held-out measure that chooses the weights.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Select {
    Equity,
    Choices,
}

/// How a net gets its new hidden units.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Widen {
    Zero,
    Split,
}

fn choices(s: &ChoiceStats) -> String {
    format!(
        "; {} decisions: 0-ply choice gives away {:.2} ± {:.2} millipoints, the labels' best in {:.1}%",
        s.decisions,
        1000.0 * s.regret,
        1000.0 * s.regret_error,
        100.0 * s.agree
    )
}

fn line(what: &str, s: &FitStats) -> String {
    format!(
        "{what}: {} labels, cross-entropy {:.5}, mean |equity error| {:.5}",
        s.samples, s.cross_entropy, s.equity_error
    )
}

pub fn fit(args: &FitArgs) -> CliResult {
    if !(args.alpha > 0.0 && args.alpha <= 1.0) {
        return Err(CliError::bad_input("--alpha: between 0 (excluded) and 1"));
    }
    let lock = TargetLock::acquire(&args.out).map_err(|e| store_error("weights", e))?;
    if args.out.exists() && !args.force {
        return Err(CliError::bad_input(format!(
            "{} exists: pass --force to overwrite it (or choose another --out)",
            args.out.display()
        )));
    }
    let mut file = match &args.weights {
        Some(p) => {
            NetFile::load(p).map_err(|e| weights_error(format!("weights {}", p.display()), e))?
        }
        None => NetFile::decode(weights::BUILTIN)
            .map_err(|e| CliError::internal(format!("built-in weights: {e}")))?,
    };
    if args.crashed_net && file.evaluator.crashed.is_none() {
        file.evaluator.crashed = Some(file.evaluator.contact.clone());
    }
    if args.crashed_hidden.is_some() && file.evaluator.crashed.is_none() {
        return Err(CliError::bad_input(
            "--crashed-hidden: the weights have no crashed net (add --crashed-net)",
        ));
    }
    let mut rng = tabula_gammon::Rng::new(args.seed);
    let e = &mut file.evaluator;
    for (flag, hidden, net) in [
        (
            "--contact-hidden",
            args.contact_hidden,
            Some(&mut e.contact),
        ),
        ("--race-hidden", args.race_hidden, Some(&mut e.race)),
        ("--crashed-hidden", args.crashed_hidden, e.crashed.as_mut()),
    ] {
        if let (Some(h), Some(net)) = (hidden, net) {
            if h < net.hidden() || h > tabula_gammon::net::MAX_HIDDEN {
                return Err(CliError::bad_input(format!(
                    "{flag} {h}: from the net's {} to {}",
                    net.hidden(),
                    tabula_gammon::net::MAX_HIDDEN
                )));
            }
            *net = match args.widen {
                Widen::Zero => tabula_gammon::supervised::widen(net, h, &mut rng),
                Widen::Split => tabula_gammon::supervised::split(net, h, &mut rng),
            };
        }
    }
    if !(args.rank >= 0.0 && args.rank <= 1000.0) {
        return Err(CliError::bad_input("--rank: from 0 to 1000"));
    }
    let (mut train, mut held): (Vec<Label>, Vec<Label>) = (Vec::new(), Vec::new());
    // Each decision's labels, as ranges of `train` and `held`.
    let (mut train_groups, mut held_groups) = (Vec::new(), Vec::new());
    let mut any_decisions = false;
    let files = args.labels.iter().map(|p| (p, false));
    for (p, anchor) in files.chain(args.anchor.iter().map(|p| (p, true))) {
        let text = crate::common::read_text(p)
            .map_err(|e| CliError::bad_input(format!("cannot read {}: {e}", p.display())))?;
        let f = LabelFile::read(&text)
            .map_err(|e| CliError::bad_input(format!("{}: {e}", p.display())))?;
        if f.unfinished_bytes > 0 {
            eprintln!(
                "fit: {}: {} bytes of an unfinished chunk left out",
                p.display(),
                f.unfinished_bytes
            );
        }
        any_decisions |= f.decisions;
        // A decision's labels are all in one chunk, so all held out or all trained on.
        for g in decision_groups(&f.labels, &f.chunk_of) {
            let c = f.chunk_of[g.start];
            let (labels, groups) = if !anchor && c % args.hold_out == args.hold_out - 1 {
                (&mut held, &mut held_groups)
            } else {
                (&mut train, &mut train_groups)
            };
            groups.push(labels.len()..labels.len() + g.len());
            labels.extend_from_slice(&f.labels[g]);
        }
    }
    for (asked, flag) in [
        (args.rank > 0.0, "--rank"),
        (args.select == Select::Choices, "--select choices"),
    ] {
        if asked && !any_decisions {
            return Err(CliError::bad_input(format!(
                "{flag}: no label file names its decisions (make them with `label --siblings`)"
            )));
        }
    }
    // What the weights' 0-ply choices give away at each held-out decision (none without
    // decision numbers), and those of the starting weights, for a paired comparison.
    let regrets = |eval: &tabula_gammon::Evaluator| {
        if any_decisions {
            choice_regrets(eval, &held, &held_groups)
        } else {
            Vec::new()
        }
    };
    let start_regrets = regrets(&file.evaluator);
    let held_choices = |now: &[(f64, bool)]| {
        if !any_decisions {
            return String::new();
        }
        let (change, error) = now
            .iter()
            .zip(&start_regrets)
            .map(|(a, b)| a.0 - b.0)
            .collect::<Mean>()
            .estimate();
        format!(
            "{} ({:+.2} ± {:.2} against the start)",
            choices(&ChoiceStats::of(now)),
            1000.0 * change,
            1000.0 * error
        )
    };
    if train.is_empty() || held.is_empty() {
        return Err(CliError::bad_input(format!(
            "fit: {} training and {} held-out labels: both must be non-empty (more chunks, or a smaller --hold-out)",
            train.len(),
            held.len()
        )));
    }
    let started = Instant::now();
    let mut best = measure(&file.evaluator, &held);
    // The measure --select minimises.
    let score = |stats: &FitStats, regrets: &[(f64, bool)]| match args.select {
        Select::Equity => stats.equity_error,
        Select::Choices => ChoiceStats::of(regrets).regret,
    };
    let mut best_score = score(&best, &start_regrets);
    let mut best_regrets = start_regrets.clone();
    eprintln!(
        "{}{}",
        line("fit: start, held out", &best),
        held_choices(&start_regrets)
    );
    let interrupt = interrupt_flag();
    let mut alpha = args.alpha;
    let mut eval = file.evaluator.clone();
    let mut saved = false;
    let mut stale = 0;
    for epoch in 0..args.epochs {
        if interrupt.load(Ordering::Relaxed) {
            eprintln!("fit: interrupted before epoch {}", epoch + 1);
            break;
        }
        let seed = args.seed.wrapping_add(epoch as u64);
        let seen = if args.rank > 0.0 {
            fit_epoch_ranked(&mut eval, &train, &train_groups, alpha, args.rank, seed)
        } else {
            fit_epoch(&mut eval, &train, alpha, seed)
        };
        let now = measure(&eval, &held);
        let now_regrets = regrets(&eval);
        eprintln!(
            "fit: epoch {}/{} (alpha {alpha}), {:.1} s; {}; {}{}",
            epoch + 1,
            args.epochs,
            started.elapsed().as_secs_f64(),
            line("training (during the pass)", &seen),
            line("held out", &now),
            held_choices(&now_regrets)
        );
        let now_score = score(&now, &now_regrets);
        if now_score < best_score {
            (best, best_score, best_regrets) = (now, now_score, now_regrets);
            file.evaluator = eval.clone();
            file.save_locked(&lock, Existing::Replace)
                .map_err(|e| weights_error("cannot save the weights".into(), e))?;
            saved = true;
            stale = 0;
        } else if args.anneal {
            stale += 1;
            if stale == args.patience {
                alpha *= 0.5;
                stale = 0;
            }
        }
    }
    if !saved {
        return Err(CliError::bad_input(format!(
            "fit: no epoch improved the held-out fit of the starting weights; {} not written (try a smaller --alpha)",
            args.out.display()
        )));
    }
    eprintln!(
        "fit: done; {} holds the best, {}{}",
        args.out.display(),
        line("held out", &best),
        held_choices(&best_regrets)
    );
    Ok(())
}
